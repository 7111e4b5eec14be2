import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { PNG } from 'pngjs';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { withTempDir, withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';
import { segmentationNrrd, TWO_GROUPS_JSON, twoGroupValue } from '../../volume/mitk-segmentation-bytes.js';
import { imageBytes, smallVolume } from './volumes.js';

// A segmentation file as MITK and its Python client write one, made byte by byte in the test:
// two groups on a 20x20x4 grid (1 mm, origin 0). Along x: liver (red, opaque) for x < 12 and
// spleen (green, opaque) beyond, in group 0; the tumour (blue, half opaque) for 8 <= x < 16 in
// group 1, over both.
const segmentationFile = (groupsJson = TWO_GROUPS_JSON): Uint8Array =>
  segmentationNrrd({ sizes: [20, 20, 4], groups: 2, groupsJson, value: (g, i) => twoGroupValue(g, i) });
const DIRECT = (name: string) => ({
  'content-type': 'application/octet-stream',
  'content-disposition': `attachment; filename="${name}"`,
});

function groupsOf(bytes: Uint8Array): unknown {
  return readImageBytes(bytes, 'nrrd').segmentation!.groups.map((g) => ({
    name: g.name,
    labels: g.labels.map((l) => [l.value, l.name, l.visible]),
    values: [...g.frames[0]!.subarray(0, 20)],
  }));
}

/** The colours of voxels x = 0..19 of the axial window's row at 30% of its height, found from the row's lit extent. */
async function axialRow(wb: TestWorkbench, xs: number[]): Promise<number[][]> {
  const shot = await wb.call('GET', '/rendering/editors/stdmulti/windows/axial/screenshot');
  assert.equal(shot.status, 200, shot.text);
  const png = PNG.sync.read(shot.bytes);
  const y = Math.round(png.height * 0.3);
  const at = (x: number): number[] => [...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3)];
  const lit = Array.from({ length: png.width }, (_, x) => x).filter((x) => at(x).some((c) => c > 0));
  const [x0, x1] = [lit[0]!, lit[lit.length - 1]! + 1];
  assert.ok(x1 - x0 > 200, `the 20 mm grid fills most of the window (${x0}..${x1})`);
  // Patient right (low x) is on the screen's left in an axial view.
  return xs.map((i) => at(Math.floor(x0 + ((i + 0.5) * (x1 - x0)) / 20)));
}

test('a MITK segmentation built from the format facts: uploaded direct and by file reference, listed, downloaded both ways with its groups and labels', async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, 'findings.nrrd');
    await writeFile(file, segmentationFile());
    await withWorkbench({}, async (wb) => {
      const direct = await wb.call('POST', '/datastorage/nodes?name=Seg', {
        body: segmentationFile(),
        headers: DIRECT('seg.nrrd'),
      });
      assert.equal(direct.status, 201, direct.text);
      assert.equal(direct.json.data.data_type, 'MultiLabelSegmentation');
      const ref = await wb.call('POST', '/datastorage/nodes', {
        json: { name: 'Ref', transfer: { mode: 'file-reference', file_path: file } },
      });
      assert.equal(ref.status, 201, ref.text);
      assert.equal(ref.json.data.data_type, 'MultiLabelSegmentation');
      await wb.call('POST', '/datastorage/nodes?name=Img', { body: imageBytes(), headers: DIRECT('img.nrrd') });
      for (const type of ['MultiLabelSegmentation', 'LabelSetImage']) {
        const listed = await wb.call('GET', `/datastorage/nodes?data_type=${type}`);
        assert.deepEqual(
          listed.json.data.map((n: { name: string }) => n.name),
          ['Seg', 'Ref'],
          type,
        );
      }

      const expected = [
        {
          name: 'Anatomy',
          labels: [
            [1, 'Liver', true],
            [2, 'Spleen', true],
          ],
          values: Array.from({ length: 20 }, (_, i) => twoGroupValue(0, i)),
        },
        {
          name: 'Findings',
          labels: [[3, 'Tumor', true]],
          values: Array.from({ length: 20 }, (_, i) => twoGroupValue(1, i)),
        },
      ];
      const bytes = await wb.call('GET', `/datastorage/nodes/${direct.json.data.uid}/data`, {
        headers: { 'x-mitk-transfer-mode': 'direct' },
      });
      assert.equal(bytes.status, 200);
      assert.equal(
        bytes.headers.get('content-disposition'),
        `attachment; filename="data_${direct.json.data.uid}.nrrd"`,
      );
      assert.match(bytes.text.slice(0, 600), /\nkinds: vector domain domain domain\n/);
      assert.deepEqual(groupsOf(bytes.bytes), expected);

      const reference = await wb.call('GET', `/datastorage/nodes/${ref.json.data.uid}/data`, {
        headers: { accept: 'application/json' },
      });
      assert.equal(reference.status, 200, reference.text);
      assert.deepEqual(reference.json.data_metadata.dimensions, [20, 20, 4]);
      assert.equal(reference.json.data_metadata.pixel_type, 'unsigned_short');
      assert.deepEqual(groupsOf(await readFile(reference.json.transfer.file_path)), expected);

      // Replacing the data keeps the node and reads the new file as MITK does.
      const img = (await wb.call('GET', '/datastorage/nodes?data_type=Image')).json.data[0].uid;
      const replaced = await wb.call('PUT', `/datastorage/nodes/${img}/data`, {
        json: { transfer: { file_path: file } },
      });
      assert.equal(replaced.json.data.data_type, 'MultiLabelSegmentation');
      const back = await wb.call('PUT', `/datastorage/nodes/${img}/data`, {
        body: imageBytes('nrrd', smallVolume()),
        headers: DIRECT('img.nrrd'),
      });
      assert.equal(back.json.data.data_type, 'Image');
    });
  });
});

test('drawn as MITK draws it: labels in their colours and opacities over the image beneath, groups layered in order, hidden labels and a hidden node not drawn', async () => {
  await withWorkbench({}, async (wb) => {
    // A grey image beneath: 100 nearly everywhere, shown at grey 192 (entry trunc(300 · 256 /
    // 400 + 1/2) of 256) through an explicit level window -200..200. Two corner voxels of other
    // values keep it from looking binary to MITK, which draws a two-valued image in red.
    const grey = smallVolume({ dims: [20, 20, 4], spacing: [1, 1, 1] });
    grey.frames = [new Float32Array(1600).fill(100)];
    grey.frames[0]![2 * 400 + 399] = 0;
    grey.frames[0]![2 * 400 + 398] = 200;
    const image = (
      await wb.call('POST', '/datastorage/nodes?name=Grey', {
        body: imageBytes('nrrd', grey),
        headers: DIRECT('grey.nrrd'),
      })
    ).json.data.uid;
    const lw = (await wb.call('GET', `/datastorage/nodes/${image}/properties/levelwindow`)).json.data.levelwindow;
    lw.value.CurrentSettings = { Level: 0, Window: 400 };
    await wb.call('PUT', `/datastorage/nodes/${image}/properties/levelwindow`, { json: lw });
    const seg = (
      await wb.call('POST', '/datastorage/nodes?name=Seg', { body: segmentationFile(), headers: DIRECT('seg.nrrd') })
    ).json.data.uid;
    assert.equal((await wb.call('POST', '/rendering/reinit', { json: {} })).status, 204);

    const [liver, liverTumour, spleenTumour, spleen] = [3, 8, 14, 18];
    assert.deepEqual(
      await axialRow(wb, [liver, liverTumour, spleenTumour, spleen]),
      [
        [255, 0, 0],
        [128, 0, 128],
        [0, 128, 128],
        [0, 255, 0],
      ],
      'opaque liver and spleen; the half-opaque tumour of the second group over both',
    );

    const hidden = TWO_GROUPS_JSON.replace('"value":2,"visible":true', '"value":2,"visible":false');
    assert.notEqual(hidden, TWO_GROUPS_JSON);
    assert.equal(
      (
        await wb.call('PUT', `/datastorage/nodes/${seg}/data`, {
          body: segmentationFile(hidden),
          headers: DIRECT('seg.nrrd'),
        })
      ).status,
      200,
    );
    // Spleen hidden: the grey image (192) shows, under the tumour half blue: 96 and 96 + 127.5
    // (223.5, which the renderer's single-precision row buffer keeps just below the half).
    assert.deepEqual(await axialRow(wb, [liver, spleenTumour, spleen]), [
      [255, 0, 0],
      [96, 96, 223],
      [192, 192, 192],
    ]);

    await wb.call('PUT', `/datastorage/nodes/${seg}/properties/opacity`, {
      body: '0.5',
      headers: { 'content-type': 'application/json' },
    });
    // Half of the liver's red over the grey: 96 + 127.5 red, 96 green and blue.
    assert.deepEqual((await axialRow(wb, [liver]))[0], [223, 96, 96], "the node's opacity scales every label's");
    await wb.call('PUT', `/datastorage/nodes/${seg}/properties/visible`, {
      body: 'false',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(
      await axialRow(wb, [liver, spleenTumour]),
      [
        [192, 192, 192],
        [192, 192, 192],
      ],
      'a hidden node draws nothing',
    );
  });
});

test('the 3D window shows the labels in their colours on its slice planes', async () => {
  await withWorkbench({}, async (wb) => {
    await wb.call('POST', '/datastorage/nodes?name=Seg', { body: segmentationFile(), headers: DIRECT('seg.nrrd') });
    await wb.call('POST', '/rendering/reinit', { json: {} });
    const png = PNG.sync.read(
      (await wb.call('GET', '/rendering/editors/stdmulti/windows/3d/screenshot?width=256&height=256')).bytes,
    );
    const colours = new Set<string>();
    for (let p = 0; p < png.data.length; p += 4) colours.add(`${png.data[p]},${png.data[p + 1]},${png.data[p + 2]}`);
    for (const rgb of ['255,0,0', '0,255,0', '128,0,128', '0,128,128'])
      assert.ok(colours.has(rgb), `${rgb} shows in 3D`);
  });
});
