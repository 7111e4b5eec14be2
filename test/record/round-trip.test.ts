// wbplay record, round trip: a rich state arranged through the client is recorded (level windows
// and a colour map among it), the recorded playbook runs on a fresh workbench, and every window's
// screenshot equals the live one pixel for pixel; the state read back equals the recorded state.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect, type WorkbenchClient } from '../../src/client/index.js';
import { decodePng } from '../../src/image/png-decode.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { root, wbplay } from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

const STD = ['axial', 'sagittal', 'coronal', '3d'] as const;

async function windowsOf(
  client: WorkbenchClient,
): Promise<Array<{ address: string; grab: () => Promise<Uint8Array>; state: () => Promise<unknown> }>> {
  const std = STD.map((id) => {
    const w = client.stdmulti.window(id);
    return {
      address: `stdmulti/${id}`,
      grab: async () => (await w.screenshot()).bytes,
      state: async () => ({ camera: await w.camera(), slice: id === '3d' ? null : (await w.selectedSlice()).step }),
    };
  });
  const cells = (await client.editors.list()).some((e) => e.alias === 'mxn' && e.active)
    ? await client.mxn.cells()
    : [];
  return [
    ...std,
    ...cells.map((c) => ({
      address: `mxn/${c.id}`,
      grab: async () => (await c.screenshot()).bytes,
      state: async () => ({ camera: await c.camera(), slice: (await c.selectedSlice()).step }),
    })),
  ];
}

async function pixelsOf(bytes: Uint8Array): Promise<Buffer> {
  return Buffer.from((await decodePng(bytes)).data);
}

test('a recorded state runs on a fresh workbench to the same pixels in every window and the same state', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-record-'));
  const live = await startTestWorkbench();
  const fresh = await startTestWorkbench();
  t.after(async () => {
    await Promise.all([live.stop(), fresh.stop()]);
    await rm(dir, { recursive: true, force: true });
  });
  await writeDemoData(join(dir, 'data'));
  await cp(join(root, 'playbooks', 'layouts', 'modality-grid.json'), join(dir, 'grid.json'));
  const wb = connect({ url: live.url });
  t.after(() => wb.close());

  // Two images and a segmentation, colours, opacity, a hidden node, per-window visibility.
  const { node: ct } = await wb.nodes.create({ file: join(dir, 'data', 'ct.nrrd'), name: 'CT' });
  const { node: mr } = await wb.nodes.create({ file: join(dir, 'data', 'perfusion-4d.nrrd'), name: 'Perfusion' });
  const { node: tumour } = await wb.nodes.create({
    file: join(dir, 'data', 'tumour-label.nrrd'),
    name: 'Tumour',
    parent: ct.uid,
  });
  await wb.nodes.setDisplay(ct.uid, { color: [1, 0.9, 0.8] });
  await wb.nodes.setDisplay(tumour.uid, { opacity: 0.55 });
  await wb.nodes.setDisplay(mr.uid, { opacity: 0.4, color: [0.6, 0.8, 1], layer: 7 });
  // A level window, a colour map, smoothing, and another level window in the coronal window.
  await wb.display.setLevelWindow(ct.uid, { level: 40, window: 400 });
  await wb.display.setInterpolation(ct.uid, { texture: true });
  await wb.display.setColormap(mr.uid, 'Legacy Rainbow Color');
  await wb.display.setLevelWindow(ct.uid, 'Bones', { context: wb.stdmulti.window('coronal').context });
  await wb.rendering.reinit();
  // The tumour hidden everywhere but in the axial window.
  await wb.nodes.setDisplay(tumour.uid, { visible: false });
  await wb.stdmulti.window('axial').setNodeVisible(tumour.uid, true);
  // A 2x3 MxN layout with linked cells, a moved crosshair, a time step, a rotated 3D camera.
  await wb.mxn.setLayout(
    JSON.parse(await readFile(join(dir, 'grid.json'), 'utf8')) as Parameters<typeof wb.mxn.setLayout>[0],
  );
  await wb.rendering.setSelectedPosition([40, 60, 30]);
  await wb.rendering.setTime({ timestep: 2 });
  await wb.stdmulti.window('axial').setSelectedSlice(20);
  await wb.stdmulti.window('3d').setCamera({ standard_view: 'left' });
  await wb.stdmulti.window('3d').setCamera({ perspective_angle: 25 });

  const rec = await wbplay(
    ['record', '--url', live.url, '--out', 'rec/recorded.yaml', '--now', '2026-01-01T00:00:00.000Z'],
    dir,
  );
  assert.equal(rec.code, 0, rec.stderr);
  const text = await readFile(join(dir, 'rec', 'recorded.yaml'), 'utf8');
  const golden = join(root, 'test', 'golden', 'record', 'recorded.yaml');
  if (process.env.UPDATE_GOLDENS === '1')
    await (await import('node:fs/promises')).writeFile(golden, text.replace(live.url, 'http://127.0.0.1:PORT'));
  assert.equal(
    text.replace(live.url, 'http://127.0.0.1:PORT'),
    await readFile(golden, 'utf8'),
    'the recorded playbook reads as its golden',
  );

  const validate = await wbplay(['validate', 'rec/recorded.yaml'], dir);
  assert.equal(validate.code, 0, validate.stderr);
  const run = await wbplay(
    ['run', 'rec/recorded.yaml', '--url', fresh.url, '--out', 'replayed', '--reporter', 'line'],
    dir,
  );
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);

  const copy = connect({ url: fresh.url });
  t.after(() => copy.close());
  const [liveWindows, freshWindows] = await Promise.all([windowsOf(wb), windowsOf(copy)]);
  assert.deepEqual(
    freshWindows.map((w) => w.address),
    liveWindows.map((w) => w.address),
  );
  for (const [i, w] of liveWindows.entries()) {
    assert.deepEqual(await freshWindows[i]!.state(), await w.state(), `${w.address}: camera and slice`);
    const [a, b] = [await freshWindows[i]!.grab(), await w.grab()];
    if (process.env.DUMP) {
      const fs = await import('node:fs/promises');
      await fs.writeFile(`/tmp/rec-${i}-fresh.png`, a);
      await fs.writeFile(`/tmp/rec-${i}-live.png`, b);
    }
    assert.ok((await pixelsOf(a)).equals(await pixelsOf(b)), `${w.address}: the same pixels`);
  }
  assert.deepEqual(await copy.rendering.selectedPosition(), await wb.rendering.selectedPosition());
  assert.deepEqual((await copy.rendering.time()).timestep, 2);
});

test("a node whose data cannot be handed out is listed, never dropped silently; --map loads the user's own file", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-record-map-'));
  const live = await startTestWorkbench();
  t.after(async () => {
    await live.stop();
    await rm(dir, { recursive: true, force: true });
  });
  await writeDemoData(join(dir, 'data'));
  const wb = connect({ url: live.url });
  t.after(() => wb.close());
  await wb.nodes.create({ file: join(dir, 'data', 'ct.nrrd'), name: 'CT' });
  await wb.nodes.create({ name: 'Annotations' });
  const rec = await wbplay(['record', '--url', live.url, '--out', 'map.yaml', '--map', 'CT=data/ct.nrrd'], dir);
  assert.equal(rec.code, 0, rec.stderr);
  assert.match(rec.stderr, /warning: not reproduced: Annotations \(no data\): cannot be downloaded/);
  const text = await readFile(join(dir, 'map.yaml'), 'utf8');
  assert.match(text, /^# Not reproduced:\n# {3}Annotations \(no data\): cannot be downloaded/m);
  assert.match(text, /- load: \{ file: "data\/ct\.nrrd", as: ct, name: "CT" \}/);
  assert.doesNotMatch(text, /annotations/);
});

test('record without a workbench to read is a usage error that says what to do', async () => {
  const result = await wbplay(['record', '--out', 'x.yaml'], tmpdir());
  assert.equal(result.code, 2);
  assert.match(result.stderr, /record reads a running workbench: no --url given and WORKBENCH_URL is not set/);
});
