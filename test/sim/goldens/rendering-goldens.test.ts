import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ctPhantom, labelPhantom, mrPhantom, nominalStudy, perfusionPhantom } from '../../../src/sim/phantom.js';
import { levelWindowProperty, setup } from '../rendering/harness.js';
import { MODALITY_GRID } from '../rendering/layouts.js';

/**
 * Rendering goldens of the demo phantom, compared byte for byte (the renderer is deterministic).
 * `WBPLAY_UPDATE_GOLDENS=1` rewrites them; a person must then look at each image and check that
 * it shows what its test name says before it is committed.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const UPDATE = process.env.WBPLAY_UPDATE_GOLDENS === '1';
const study = nominalStudy();

async function expectGolden(name: string, bytes: Buffer): Promise<void> {
  const file = join(HERE, `${name}.png`);
  if (UPDATE) {
    writeFileSync(file, bytes);
    return;
  }
  assert.ok(
    existsSync(file),
    `golden ${name}.png is missing; run the test with WBPLAY_UPDATE_GOLDENS=1 and look at the image`,
  );
  assert.ok(
    readFileSync(file).equals(bytes),
    `${name}.png differs from the rendering; if the change is intended, regenerate with WBPLAY_UPDATE_GOLDENS=1 and look at it`,
  );
}

/** The CT phantom with its label image on top, reinit, crosshair through the tumour centre. */
async function ctScene() {
  const s = setup();
  s.store.add('ct', ctPhantom(study), {
    levelwindow: levelWindowProperty(50, 500),
  });
  s.store.add('labels', labelPhantom(study), {
    layer: { type: 'IntProperty', value: 1 },
    opacity: { type: 'FloatProperty', value: 0.6 },
  });
  assert.equal((await s.call('POST', '/rendering/reinit')).status, 204);
  assert.equal((await s.call('PUT', '/rendering/selected-position', { position: study.tumour.centre })).status, 204);
  return s;
}

async function grab(
  s: Awaited<ReturnType<typeof ctScene>>,
  path: string,
  query = 'width=256&height=256',
): Promise<Buffer> {
  const res = await s.call('GET', path, undefined, query);
  assert.equal(res.status, 200, res.body.toString('utf8'));
  return res.body;
}

test('axial: patient left on screen right, anterior up; spine at the bottom, organ (label 2) on the left, red tumour right of centre; green vertical and blue horizontal crosshair through the tumour', async () => {
  const s = await ctScene();
  await expectGolden('stdmulti-axial', await grab(s, '/rendering/editors/stdmulti/windows/axial/screenshot'));
});

test('sagittal: anterior on screen left, head up; the trunk a tall band, red tumour in it; red horizontal (axial) and blue vertical (coronal) lines', async () => {
  const s = await ctScene();
  await expectGolden('stdmulti-sagittal', await grab(s, '/rendering/editors/stdmulti/windows/sagittal/screenshot'));
});

test('coronal: patient right on screen left, head up; organ left of the red tumour; red horizontal and green vertical lines', async () => {
  const s = await ctScene();
  await expectGolden('stdmulti-coronal', await grab(s, '/rendering/editors/stdmulti/windows/coronal/screenshot'));
});

test('3D from anterior: the three textured planes crossing at the tumour, axial edge red, sagittal green, coronal blue, over the dark background', async () => {
  const s = await ctScene();
  await expectGolden('3d-anterior', await grab(s, '/rendering/editors/stdmulti/windows/3d/screenshot'));
});

test('3D from the left: the same planes seen from the patient left side, the sagittal plane facing the viewer', async () => {
  const s = await ctScene();
  assert.equal(
    (await s.call('PUT', '/rendering/editors/stdmulti/windows/3d/camera', { standard_view: 'left' })).status,
    204,
  );
  await expectGolden('3d-left', await grab(s, '/rendering/editors/stdmulti/windows/3d/screenshot'));
});

test('MxN 2x3 modality grid: top row CT axial, coronal, sagittal; bottom row the MR (mirrored grid, same anatomy) in the same order', async () => {
  const s = await ctScene();
  s.store.add('mr', mrPhantom(study));
  await s.call('POST', '/rendering/reinit');
  assert.equal((await s.call('PUT', '/rendering/editors/mxn/layout', MODALITY_GRID)).status, 200);
  const hide = (uid: string, cell: string) => s.store.set(uid, 'visible', { type: 'BoolProperty', value: false }, cell);
  for (const v of ['axial', 'coronal', 'sagittal']) {
    hide('mr', `mxn__ct_${v}`);
    hide('ct', `mxn__mr_${v}`);
    hide('labels', `mxn__mr_${v}`);
    await s.call('PUT', `/rendering/editors/mxn/windows/mxn__ct_${v}/selected-position`, {
      position: study.tumour.centre,
    });
    await s.call('PUT', `/rendering/editors/mxn/windows/mxn__mr_${v}/selected-position`, {
      position: study.tumour.centre,
    });
  }
  await expectGolden('mxn-modality-grid', await grab(s, '/rendering/editors/mxn/screenshot', 'width=256&height=192'));
});

test('4D perfusion at time step 3 (1.5 s, the bolus peak): the tumour much brighter than the trunk around it', async () => {
  const s = setup();
  s.store.add('perfusion', perfusionPhantom(study), {
    levelwindow: levelWindowProperty(250, 500),
  });
  await s.call('POST', '/rendering/reinit');
  await s.call('PUT', '/rendering/selected-position', { position: study.tumour.centre });
  assert.equal((await s.call('PUT', '/rendering/selected-time', { timestep: 3 })).status, 204);
  await expectGolden(
    'perfusion-step3',
    await grab(s, '/rendering/editors/stdmulti/windows/axial/screenshot', 'width=128&height=128'),
  );
});
