import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { connect, WorkbenchApiError, WorkbenchUsageError } from '../../src/client/index.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { startReferenceWorkbench } from '../../src/sim/server.js';

// The client against the reference workbench over real HTTP: the two sides were written from
// the same references independently, so agreement here checks both.
test('the client drives the reference workbench: load, display, navigate, layout, capture', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-client-ref-'));
  const ref = await startReferenceWorkbench({ port: 0 });
  const wb = connect({ url: `${ref.url}/` });
  try {
    await writeDemoData(dir);
    const info = await wb.info();
    assert.equal(info.api_version, 'v1');
    assert.ok(info.engine_version.length > 0);
    assert.ok(info.transfer_modes.includes('direct'));

    const { node: ct } = await wb.nodes.create({ file: join(dir, 'ct.nrrd'), name: 'CT', transfer: 'direct' });
    const { node: mr } = await wb.nodes.create({ file: join(dir, 'mr.nii.gz'), name: 'MR', transfer: 'direct' });
    const { node: label } = await wb.nodes.create({
      file: join(dir, 'tumour-label.nrrd'),
      name: 'Tumour',
      parent: ct.uid,
      transfer: 'file-reference',
    });
    assert.equal(label.parent_uid, ct.uid);
    await wb.nodes.setDisplay(label.uid, { opacity: 1, color: [1, 0.3, 0.2] });
    const opacity = await wb.properties.get(label.uid, 'opacity');
    assert.equal(opacity, 1);
    assert.equal((await wb.nodes.list({})).length, 3);

    await wb.nodes.setDisplay(mr.uid, { visible: false });
    await wb.rendering.reinit(ct.uid);
    const slice = await wb.stdmulti.axial.selectedSlice();
    assert.deepEqual([slice.step, slice.bounds.steps], [16, 32]);
    assert.deepEqual(slice.bounds.min_position, [-0.5, -0.5, -1.25]);
    await wb.rendering.setSelectedPosition([60, 40, 30]);
    assert.deepEqual((await wb.rendering.selectedPosition()).position, [60, 40, 30]);
    await wb.stdmulti.threeD.setCamera({ standard_view: 'anterior' });
    assert.equal((await wb.stdmulti.axial.camera()).perspective_angle ?? null, null);

    const shot = await wb.stdmulti.axial.screenshot({ width: 64, height: 48 });
    assert.equal(shot.contentType, 'image/png');
    const png = PNG.sync.read(Buffer.from(shot.bytes));
    assert.deepEqual([png.width, png.height], [64, 48]);

    await wb.mxn.setLayout({
      version: '2.0',
      root: {
        type: 'split',
        orientation: 'horizontal',
        children: [
          { type: 'window', id: 'mxn__ct', name: 'CT', view_direction: 'axial', links: { selection: 'main' } },
          { type: 'window', id: 'mxn__mr', view_direction: 'coronal', links: { selection: 'main' } },
        ],
      },
    });
    const cells = await wb.mxn.windows();
    assert.deepEqual(
      cells.map((c) => c.id),
      ['mxn__ct', 'mxn__mr'],
    );
    await wb.mxn.window('mxn__ct').setNodeVisible(label.uid, false);
    assert.equal(await wb.mxn.window('mxn__ct').nodeVisible(label.uid), false);

    await assert.rejects(
      wb.nodes.get('no-such-node'),
      (err: unknown) => err instanceof WorkbenchApiError && err.status === 404 && err.code === 'NODE_NOT_FOUND',
    );
    await assert.rejects(
      wb.rendering.setTime({ timestep: 5 }),
      (err: unknown) => err instanceof WorkbenchApiError && err.status === 422 && err.code === 'RENDERING_ERROR',
    );
    await assert.rejects(
      wb.stdmulti.threeD.setCamera({ parallel_scale: 3 }),
      (err: unknown) => err instanceof WorkbenchUsageError,
    );
  } finally {
    await wb.close();
    await ref.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
