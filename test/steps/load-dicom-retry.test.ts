// A DICOM series sent as NRRD (the workbench cannot read the files) takes three exchanges: the
// upload, the node's properties (name, marker, display, level window, lookup table), the data's
// properties (the DICOM tags, name and level window). Whichever of them fails or loses its
// answer, the run's retry ends with the node a clean load makes: every property the same.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { runPlans } from '../../src/run/runner.js';
import { writeDicomSeries } from '../../src/volume/dicom/write.js';
import type { Volume } from '../../src/volume/volume.js';
import { FAST_RETRY } from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

let dir = '';
let playbook = '';
/** The workbench may read only this folder, so the series travels as NRRD. */
let elsewhere = '';

function radiograph(): Volume {
  const dims: [number, number, number] = [12, 10, 6];
  return {
    dims,
    spacing: [0.5, 0.5, 2],
    origin: [-3, 4, 20],
    direction: [1, 0, 0, 0, 1, 0, 0, 0, 1],
    frames: [Float32Array.from({ length: 12 * 10 * 6 }, (_, i) => ((i * 13) % 900) - 100)],
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'int16',
    range: [-100, 799],
  };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-load-retry-'));
  elsewhere = join(dir, 'allowed');
  await mkdir(elsewhere);
  const series = join(dir, 'series');
  // MONOCHROME1 with a window: the node gets a level window, the inverse lookup table and its
  // rendering mode; the data its tags, name and level window.
  await writeDicomSeries(radiograph(), series, {
    seed: 'retry',
    studyDescription: 'CHEST',
    seriesDescription: 'PA',
    modality: 'CR',
    window: { center: 300, width: 800 },
    rescale: { slope: 1, intercept: -100 },
    tags: { PhotometricInterpretation: 'MONOCHROME1' },
  });
  playbook = join(dir, 'retry.yaml');
  await writeFile(
    playbook,
    ['version: 1', 'name: retried load', 'steps:', `  - load: { file: "${series}", as: image, opacity: 0.8 }`, ''].join(
      '\n',
    ),
  );
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface NodeState {
  name: string;
  dataType: string;
  node: Record<string, unknown>;
  data: Record<string, unknown>;
  voxels: string;
  /** Exchanges that changed the scene, for the message of a failed check. */
  attempts: number[];
}

/** Runs the playbook on a fresh workbench with `faults` and reads back the one node it loaded. */
async function loadWith(faults: string | undefined, readsFiles = false): Promise<NodeState> {
  const wb = await startTestWorkbench({
    ...(readsFiles ? {} : { allowedDirs: [elsewhere] }),
    ...(faults ? { faults } : {}),
  });
  try {
    const out = join(dir, `out-${readsFiles}-${faults ?? 'clean'}`.replace(/[^A-Za-z0-9-]/g, '_'));
    const plan = loadPlaybook(playbook, { vars: {}, env: {}, displayRoot: dir });
    const result = await runPlans({
      plans: [plan],
      workbenches: { urls: [wb.url] },
      reporter: {},
      outputDir: out,
      retry: FAST_RETRY,
    });
    const [only] = await result.cases.all();
    assert.equal(only?.status, 'passed', JSON.stringify(only?.steps.map((s) => s.error)));
    const nodes = (await wb.call('GET', '/datastorage/nodes')).json.data as {
      uid: string;
      name: string;
      data_type: string;
    }[];
    assert.equal(nodes.length, 1, `one node, not a second one from the retry: ${JSON.stringify(nodes)}`);
    const uid = nodes[0]!.uid;
    const props = async (scope: string): Promise<Record<string, unknown>> =>
      (await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=${scope}`)).json.data.properties;
    const node = await props('node');
    // The marker names the run: it differs between any two runs, retried or not.
    assert.match(String(node['wbplay.marker']), /^wbplay-/);
    delete node['wbplay.marker'];
    const data = await wb.call('GET', `/datastorage/nodes/${uid}/data`, {
      headers: { 'x-mitk-transfer-mode': 'direct' },
    });
    return {
      name: nodes[0]!.name,
      dataType: nodes[0]!.data_type,
      node,
      data: await props('data'),
      voxels: data.bytes.toString('base64'),
      attempts: only!.steps.map((s) => s.attempts.length),
    };
  } finally {
    await wb.stop();
  }
}

let clean: NodeState | undefined;
async function cleanLoad(): Promise<NodeState> {
  clean ??= await loadWith(undefined);
  return clean;
}

test('a clean load sets the level window, lookup table, DICOM tags and name the retried loads are held to', async () => {
  const c = await cleanLoad();
  assert.equal(c.name, 'CHEST / PA');
  assert.deepEqual(c.attempts, [1]);
  for (const key of ['levelwindow', 'LookupTable', 'Image Rendering.Mode', 'name', 'opacity'])
    assert.ok(key in c.node, `node property ${key}: ${Object.keys(c.node).join(', ')}`);
  for (const key of ['levelwindow', 'name', 'DICOM.0008.103E', 'DICOM.0028.0004'])
    assert.ok(key in c.data, `data property ${key}: ${Object.keys(c.data).join(', ')}`);
});

for (const [why, faults] of [
  ['the upload is applied but its answer lost', 'drop-after@POST /api/v1/datastorage/nodes#1'],
  ["the node's properties are refused (503)", '503@PATCH /api/v1/datastorage/nodes/*/properties#1'],
  [
    "the node's properties are applied but their answer lost",
    'drop-after@PATCH /api/v1/datastorage/nodes/*/properties#1',
  ],
  ["the data's DICOM properties are refused (503)", '503@PATCH /api/v1/datastorage/nodes/*/properties#2'],
  [
    "the data's DICOM properties are applied but their answer lost",
    'drop-after@PATCH /api/v1/datastorage/nodes/*/properties#2',
  ],
] as const) {
  test(`retried after ${why}: the node ends with every property of a clean load`, async () => {
    const expected = await cleanLoad();
    const retried = await loadWith(faults);
    assert.ok(retried.attempts[0]! > 1, `the fault forced a retry: ${JSON.stringify(retried.attempts)}`);
    assert.equal(retried.name, expected.name);
    assert.equal(retried.dataType, expected.dataType);
    assert.deepEqual(retried.node, expected.node, 'node properties');
    assert.deepEqual(retried.data, expected.data, 'data properties');
    assert.equal(retried.voxels, expected.voxels, 'the same voxels');
  });
}

test('by file reference, a retry after the answer was lost finds the node the workbench made and read, with its properties', async () => {
  const expected = await loadWith(undefined, true);
  const retried = await loadWith('drop-after@POST /api/v1/datastorage/nodes#1', true);
  assert.ok(retried.attempts[0]! > 1, `the fault forced a retry: ${JSON.stringify(retried.attempts)}`);
  assert.equal(retried.name, 'CHEST / PA');
  assert.deepEqual(retried.node, expected.node, 'node properties');
  assert.deepEqual(retried.data, expected.data, 'data properties');
  assert.equal(retried.voxels, expected.voxels, 'the same voxels');
});
