import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import dicomParser from 'dicom-parser';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { readImageBytes } from '../../../src/volume/read-image.js';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';
import { needs, referenceParts } from '../../volume/dicom/reference-tools.js';
import { axial, writeSeries, type SynthSlice } from '../../volume/dicom/synthetic.js';

const OCTET = 'application/octet-stream';

async function withSeriesDir(
  t: TestContext,
  slices: SynthSlice[],
  fn: (dir: string, files: string) => Promise<void>,
): Promise<void> {
  const parts = referenceParts();
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    writeSeries(parts.python!, dir, slices);
    await fn(dir, parts.files!);
  });
}

const series = (): SynthSlice[] =>
  axial(4, { windowCenter: '40', windowWidth: '400', studyDescription: 'Thorax', seriesDescription: 'Venous' }).map(
    (s, i) => ({
      ...s,
      // No extension, names against the slice order: MITK reads by content and position.
      name: `IM${7 - i}`,
    }),
  );

test('a file reference to one file of an extension-less series loads the whole series with its level window and name; it downloads as NRRD', async (t) => {
  await withSeriesDir(t, series(), async (dir) => {
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 'IM5') } },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.data.name, 'Thorax / Venous');
      const uid = created.json.data.uid;
      // MITK's reader puts the level window on the data; the mapper then adds none to the node.
      const data_ = await wb.call(
        'GET',
        `/datastorage/nodes/${uid}/properties?property_scope=data&names=levelwindow,DICOM.0008.103E`,
      );
      assert.equal(data_.status, 200, data_.text);
      assert.deepEqual(data_.json.data.properties.levelwindow.value.CurrentSettings, { Level: 40, Window: 400 });
      assert.deepEqual(data_.json.data.properties['DICOM.0008.103E'], {
        type: 'TemporoSpatialStringProperty',
        value: { values: [{ z: 0, zmax: 3, t: 0, value: 'Venous' }] },
      });
      const node_ = await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=node&names=levelwindow`);
      assert.deepEqual(node_.json.data.properties, {});
      const data = await wb.call('GET', `/datastorage/nodes/${uid}/data`);
      assert.equal(data.status, 200);
      const volume = readImageBytes(data.bytes, 'nrrd');
      assert.deepEqual(volume.dims, [6, 8, 4]);
      assert.deepEqual(volume.spacing, [0.75, 0.5, 2]);
      assert.deepEqual(volume.origin, [-5, -7, 10]);
      assert.deepEqual(
        [0, 1, 2, 3].map((k) => volume.frames[0]![k * 48]),
        [100, 200, 300, 400],
      );
    });
  });
});

test("a folder of two series: the first block is assigned and meta.warning says the rest were discarded, in MITK's words", async (t) => {
  const slices = [
    ...axial(3, { prefix: 'a', series: '1.2.3.1' }),
    ...axial(2, { prefix: 'b', series: '1.2.3.2', gap: 5 }),
  ];
  await withSeriesDir(t, slices, async (dir) => {
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', {
        json: { name: 'study', transfer: { file_path: dir } },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(
        created.json.meta.warning,
        'File contained 2 data objects. Only the first one was assigned to the node. 1 data object(s) were discarded.',
      );
    });
  });
});

test('a direct upload of one file of a series loads that slice alone, as MITK reads its temporary file', async (t) => {
  await withSeriesDir(t, series(), async (dir) => {
    await withWorkbench({}, async (wb) => {
      // mitkDataStorageController.cpp ResolveDataPath: no extension in the filename and no
      // X-MITK-Data-Format is 400 before the bytes are looked at, DICOM or not.
      const bare = await wb.call('POST', '/datastorage/nodes', {
        body: await readFile(join(dir, 'IM5')),
        headers: { 'content-type': OCTET, 'content-disposition': 'attachment; filename="IM5"' },
      });
      assert.equal(bare.status, 400, bare.text);
      assert.match(bare.json.error.message, /^Cannot determine file format/);
      const created = await wb.call('POST', '/datastorage/nodes', {
        body: await readFile(join(dir, 'IM5')),
        headers: {
          'content-type': OCTET,
          'content-disposition': 'attachment; filename="IM5"',
          'x-mitk-data-format': 'dcm',
        },
      });
      assert.equal(created.status, 201, created.text);
      const data = await wb.call('GET', `/datastorage/nodes/${created.json.data.uid}/data`);
      assert.deepEqual(readImageBytes(data.bytes, 'nrrd').dims, [6, 8, 1]);
    });
  });
});

test("pydicom's CT_small.dcm by file reference and by upload: int32 CT values, MITK's pixel type", async (t) => {
  await withSeriesDir(t, [], async (dir, files) => {
    await copyFile(join(files, 'CT_small.dcm'), join(dir, 'CT_small.dcm'));
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 'CT_small.dcm') } },
      });
      assert.equal(created.status, 201, created.text);
      const reference = await wb.call('GET', `/datastorage/nodes/${created.json.data.uid}/data`, {
        headers: { 'x-mitk-transfer-mode': 'file-reference' },
      });
      assert.equal(reference.json.data_metadata.pixel_type, 'int');
      const upload = await wb.call('PUT', `/datastorage/nodes/${created.json.data.uid}/data`, {
        body: await readFile(join(dir, 'CT_small.dcm')),
        headers: { 'content-type': OCTET, 'x-mitk-data-format': 'dcm' },
      });
      assert.equal(upload.status, 200, upload.text);
    });
  });
});

test("pydicom's liver_1frame.dcm SEG by file reference is a multi-label segmentation node named after the file", async (t) => {
  await withSeriesDir(t, [], async (dir, files) => {
    await copyFile(join(files, 'liver_1frame.dcm'), join(dir, 'liver_1frame.dcm'));
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 'liver_1frame.dcm') } },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.data.data_type, 'MultiLabelSegmentation');
      assert.equal(created.json.data.name, 'liver_1frame');
    });
  });
});

test('bad DICOM input is a 4xx naming the file and the reason, the scene unchanged and the server up', async (t) => {
  const slices: SynthSlice[] = [
    { name: 'short.dcm', position: [0, 0, 0], truncate: 30, series: '9.1' },
    { name: 'htj2k.dcm', position: [0, 0, 0], transferSyntax: '1.2.840.10008.1.2.4.201', series: '9.2' },
  ];
  await withSeriesDir(t, slices, async (dir) => {
    await writeFile(join(dir, 'notes.dcm'), 'these are notes, not an image\n'.repeat(20));
    await withWorkbench({}, async (wb) => {
      const before = (await wb.call('GET', '/datastorage/nodes')).json;
      const cases: Array<[string, number, string, RegExp]> = [
        ['short.dcm', 422, 'FILE_READ_ERROR', /short\.dcm: is truncated/],
        // No reader takes it: IOUtil::Load throws "No reader available", and LoadDataFromFile
        // answers every exception with 422 (mitkIOUtil.cpp, mitkDataStorageController.cpp).
        ['notes.dcm', 422, 'FILE_READ_ERROR', /notes\.dcm: is not a DICOM file/],
        [
          'htj2k.dcm',
          422,
          'FILE_READ_ERROR',
          /htj2k\.dcm: uses the transfer syntax 1\.2\.840\.10008\.1\.2\.4\.201 \(HTJ2K lossless\)/,
        ],
      ];
      for (const [name, status, code, message] of cases) {
        const byReference = await wb.call('POST', '/datastorage/nodes', {
          json: { transfer: { file_path: join(dir, name) } },
        });
        assert.equal(byReference.status, status, `${name}: ${byReference.text}`);
        assert.equal(byReference.json.error.code, code);
        assert.match(byReference.json.error.message, message);
        const byUpload = await wb.call('POST', '/datastorage/nodes', {
          body: await readFile(join(dir, name)),
          headers: { 'content-type': OCTET, 'content-disposition': `attachment; filename="${name}"` },
        });
        assert.equal(byUpload.status, status, `${name} uploaded: ${byUpload.text}`);
        assert.match(byUpload.json.error.message, new RegExp(name.replace('.', '\\.')));
      }
      assert.deepEqual((await wb.call('GET', '/datastorage/nodes')).json, before);
      assert.equal((await wb.call('GET', '/health')).status, 200);
    });
  });
});

test("a colour DICOM (pydicom's SC_rgb_rle.dcm) downloads as an RGB NRRD holding GDCM's RGB bytes", async (t) => {
  const parts = referenceParts(['gdcmconv']);
  if (!needs(t, parts.missing)) return;
  await withTempDir(async (dir) => {
    const source = join(parts.files!, 'SC_rgb_rle.dcm');
    await copyFile(source, join(dir, 'rgb.dcm'));
    execFileSync('gdcmconv', ['--raw', source, join(dir, 'raw.dcm')]);
    const raw = await readFile(join(dir, 'raw.dcm'));
    const pixels = dicomParser.parseDicom(raw).elements.x7fe00010!;
    await withWorkbench({}, async (wb) => {
      const created = await wb.call('POST', '/datastorage/nodes', {
        json: { transfer: { file_path: join(dir, 'rgb.dcm') } },
      });
      assert.equal(created.status, 201, created.text);
      const data = await wb.call('GET', `/datastorage/nodes/${created.json.data.uid}/data`);
      const text = data.bytes.toString('latin1');
      const end = text.indexOf('\n\n');
      const header = text.slice(0, end);
      assert.match(header, /^type: unsigned char$/m);
      assert.match(header, /^sizes: 3 100 100 1$/m);
      assert.match(header, /^kinds: RGB-color domain domain domain$/m);
      const samples = gunzipSync(data.bytes.subarray(end + 2));
      assert.ok(samples.equals(raw.subarray(pixels.dataOffset, pixels.dataOffset + pixels.length)));
    });
  });
});

test('hostile DICOM bytes (CT_small.dcm cut short at every kind of place, bytes overwritten) never get a 5xx', async (t) => {
  await withSeriesDir(t, [], async (dir, files) => {
    const good = await readFile(join(files, 'CT_small.dcm'));
    await withWorkbench({}, async (wb) => {
      const variants: Array<[string, Uint8Array]> = [];
      for (const cut of [133, 140, 200, 400, 800, 1500, 3000, good.length - 1000, good.length - 1])
        variants.push([`cut-${cut}.dcm`, good.subarray(0, cut)]);
      for (let k = 0; k < 12; k++) {
        const bytes = new Uint8Array(good);
        // Overwrite a run of bytes in the data set with values that make lengths and tags absurd.
        const at = 140 + ((k * 977) % 1800);
        bytes.fill(k % 2 === 0 ? 0xff : 0x7f, at, at + 6);
        variants.push([`flip-${k}.dcm`, bytes]);
      }
      for (const [name, bytes] of variants) {
        // Each in a folder of its own: a file reference reads the file's series from its folder.
        const own = join(dir, name.replace('.dcm', ''));
        await mkdir(own);
        await writeFile(join(own, name), bytes);
        const a = await wb.call('POST', '/datastorage/nodes', { json: { transfer: { file_path: join(own, name) } } });
        assert.ok(a.status === 201 || (a.status >= 400 && a.status < 500), `${name}: ${a.status} ${a.text}`);
        if (a.status !== 201) assert.match(a.json.error.message, new RegExp(name.replace('.', '\\.')), name);
        const b = await wb.call('POST', '/datastorage/nodes', {
          body: bytes,
          headers: { 'content-type': OCTET, 'content-disposition': `attachment; filename="${name}"` },
        });
        assert.ok(b.status === 201 || (b.status >= 400 && b.status < 500), `${name} uploaded: ${b.status} ${b.text}`);
      }
      assert.equal((await wb.call('GET', '/health')).status, 200);
    });
  });
});
