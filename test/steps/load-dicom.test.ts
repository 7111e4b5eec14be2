// `load` of DICOM on the reference workbench: a workbench that cannot read the files (outside its
// allowed directories, as on another machine) gets the series read here and sent as one NRRD with
// MITK's properties; one that can gets a file reference; `where` picks a series of a folder and
// lists the candidates when it cannot; a bad file fails the step with the file named.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { classify } from '../../src/run/classify.js';
import { compilePlaybook } from '../../src/compile/index.js';
import { load, type LoadArgs } from '../../src/steps/load.js';
import type { StepOutcome, StepRunContext } from '../../src/steps/run-context.js';
import { writeDicomSeries } from '../../src/volume/dicom/write.js';
import { DICOM_SEG_FILE, writeDemoDicom } from '../../src/sim/demo-dicom.js';
import { labelPhantom, nominalStudy } from '../../src/sim/phantom.js';
import { readImageBytes } from '../../src/volume/read-image.js';
import type { Volume } from '../../src/volume/volume.js';
import { startTestWorkbench, type TestWorkbench } from '../helpers/workbench.js';

let dir = '';
/** Two CT series (arterial, venous) mixed in one folder, names without extension. */
let phases = '';
let monochrome1 = '';
let elsewhere = '';

function ct(offset: number): Volume {
  const dims: [number, number, number] = [16, 12, 10];
  const frame = Float32Array.from({ length: 16 * 12 * 10 }, (_, i) => ((i * 7) % 300) - 100 + offset);
  return {
    dims,
    spacing: [0.75, 0.5, 3],
    origin: [-20, 10, 40],
    direction: [1, 0, 0, 0, 1, 0, 0, 0, 1],
    frames: [frame],
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'int16',
    range: [-100 + offset, 199 + offset],
  };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-load-dicom-'));
  phases = join(dir, 'phases');
  monochrome1 = join(dir, 'mono1');
  elsewhere = join(dir, 'allowed');
  await mkdir(elsewhere);
  const common = { seed: 'load', studyDescription: 'CT ABDOMEN', naming: 'shuffled' as const };
  await writeDicomSeries(ct(0), phases, {
    ...common,
    seriesNumber: 2,
    seriesDescription: 'ARTERIAL',
    window: { center: 40, width: 400 },
  });
  await writeDicomSeries(ct(50), phases, { ...common, seriesNumber: 3, seriesDescription: 'VENOUS' });
  await writeDicomSeries(ct(0), monochrome1, {
    seed: 'mono1',
    seriesDescription: 'RADIOGRAPH',
    modality: 'CR',
    rescale: { slope: 1, intercept: -200 },
    tags: { PhotometricInterpretation: 'MONOCHROME1' },
  });
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Ran {
  outcome: StepOutcome;
  notices: string[];
  uid: string | undefined;
}

/** Runs the load step as the runner would, against `wb`, and returns its outcome and notices. */
async function runLoad(wb: TestWorkbench, args: Partial<LoadArgs> & { file: string }): Promise<Ran> {
  const client = connect({ url: wb.url });
  const notices: string[] = [];
  let uid: string | undefined;
  const ctx = {
    client,
    attempt: 1,
    marker: 'wbplay-test-load',
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    resolveNode: () => Promise.reject(new Error('no nodes to resolve')),
    bindNode: (_alias: string | undefined, made: string) => {
      uid = made;
    },
    earlierNode: () => undefined,
    notice: (m: string) => notices.push(m),
  } as unknown as StepRunContext;
  try {
    const outcome = await load.run({ transfer: 'auto', ...args }, ctx);
    return { outcome, notices, uid };
  } finally {
    await client.close();
  }
}

async function properties(wb: TestWorkbench, uid: string, scope: 'node' | 'data'): Promise<Record<string, unknown>> {
  const r = await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=${scope}`);
  assert.equal(r.status, 200, r.text);
  return r.json.data.properties as Record<string, unknown>;
}

test('a workbench that cannot read the files gets the whole series as NRRD, with its level window, name and tags', async () => {
  const wb = await startTestWorkbench({ allowedDirs: [elsewhere] });
  try {
    const ran = await runLoad(wb, { file: phases, where: { SeriesDescription: '*ARTERIAL*' } });
    assert.equal(ran.outcome.status, 'passed');
    assert.deepEqual(ran.notices, [
      `the workbench cannot read ${ran.outcome.resolvedArgs && (ran.outcome.resolvedArgs as { file: string }).file}: the series was read here and sent as NRRD, 10 slices`,
    ]);
    assert.equal((ran.outcome.resolvedArgs as { sent: string }).sent, 'nrrd');
    assert.equal((ran.outcome.resolvedArgs as { slices: number }).slices, 10);
    const uploads = wb.events.entries.filter((e) => e.transfer !== undefined);
    assert.deepEqual(
      uploads.map((e) => [e.method, e.transfer, e.status]),
      [['POST', 'direct', 201]],
    );
    // Every slice arrived, in place: the workbench's copy of the data is the series.
    const data = await wb.call('GET', `/datastorage/nodes/${ran.uid}/data`, {
      headers: { 'x-mitk-transfer-mode': 'direct' },
    });
    assert.equal(data.status, 200);
    const sent = readImageBytes(new Uint8Array(data.bytes), 'nrrd');
    const expected = ct(0);
    assert.deepEqual(sent.dims, expected.dims);
    assert.deepEqual(sent.spacing, expected.spacing);
    assert.deepEqual(sent.origin, expected.origin);
    assert.deepEqual(Array.from(sent.frames[0]!), Array.from(expected.frames[0]!));
    const node = await properties(wb, ran.uid!, 'node');
    assert.equal(node.name, 'CT ABDOMEN / ARTERIAL');
    const lw = node.levelwindow as { value: { CurrentSettings: { Level: number; Window: number } } };
    assert.deepEqual(lw.value.CurrentSettings, { Level: 40, Window: 400 });
    const tags = await properties(wb, ran.uid!, 'data');
    const description = tags['DICOM.0008.103E'] as { value: { values: { value: string }[] } };
    assert.equal(description.value.values[0]!.value, 'ARTERIAL');
  } finally {
    await wb.stop();
  }
});

test('MONOCHROME1 arrives with the inverse grey lookup table drawn through the level window', async () => {
  const wb = await startTestWorkbench({ allowedDirs: [elsewhere] });
  try {
    const ran = await runLoad(wb, { file: monochrome1 });
    assert.equal(ran.outcome.status, 'passed');
    const node = await properties(wb, ran.uid!, 'node');
    const lut = node.LookupTable as { value: { Table: number[][] } };
    const table = lut.value.Table;
    assert.ok(table[0]![0]! > 0.99 && table.at(-1)![0]! < 0.01, 'white first, black last');
    assert.deepEqual(node['Image Rendering.Mode'], {
      type: 'RenderingModeProperty',
      value: 'LookupTable_LevelWindow_Color',
    });
  } finally {
    await wb.stop();
  }
});

test('a workbench that can read the files gets a file reference to one file of the series, and reads the series itself', async () => {
  const wb = await startTestWorkbench();
  try {
    const ran = await runLoad(wb, { file: phases, where: { SeriesNumber: 3 } });
    assert.equal(ran.outcome.status, 'passed');
    assert.deepEqual(ran.notices, []);
    const args = ran.outcome.resolvedArgs as { sent: string; file: string; slices?: number };
    assert.equal(args.sent, 'file-reference');
    assert.equal(args.slices, undefined);
    assert.ok(args.file.startsWith(phases));
    const uploads = wb.events.entries.filter((e) => e.transfer !== undefined);
    assert.deepEqual(
      uploads.map((e) => [e.method, e.transfer, e.status]),
      [['POST', 'file-reference', 201]],
    );
    const data = await wb.call('GET', `/datastorage/nodes/${ran.uid}/data`, {
      headers: { 'x-mitk-transfer-mode': 'direct' },
    });
    const read = readImageBytes(new Uint8Array(data.bytes), 'nrrd');
    assert.deepEqual(read.dims, [16, 12, 10], 'the workbench read all ten slices of the series');
    assert.equal((await properties(wb, ran.uid!, 'node')).name, 'CT ABDOMEN / VENOUS');
  } finally {
    await wb.stop();
  }
});

test('where: none or several series matching is an error that lists the series', async () => {
  const wb = await startTestWorkbench({ allowedDirs: [elsewhere] });
  try {
    const cases: [LoadArgs['where'], string, RegExp, RegExp][] = [
      [undefined, 'DICOM_SERIES_AMBIGUOUS', /holds 2 series; pick one with `where`/, /"ARTERIAL".*"VENOUS"/],
      [
        { Modality: 'CT' },
        'DICOM_SERIES_AMBIGUOUS',
        /2 series match `Modality: CT`/,
        /CT 2 "ARTERIAL" \(10 files\) in \.; CT 3 "VENOUS"/,
      ],
      [
        { SeriesDescription: '*PLAIN*' },
        'DICOM_NO_SERIES',
        /no series matches/,
        /its series: CT 2 "ARTERIAL".*CT 3 "VENOUS"/,
      ],
    ];
    for (const [where, code, message, hint] of cases) {
      const err = await runLoad(wb, { file: phases, ...(where ? { where } : {}) }).then(
        () => assert.fail(`expected an error for ${JSON.stringify(where)}`),
        (e: unknown) => e,
      );
      const info = classify(err).info;
      assert.equal(info.code, code);
      assert.match(info.message, message);
      assert.ok(info.message.includes(phases), 'the folder is named');
      assert.match(info.hint ?? '', hint);
    }
    assert.equal(wb.events.entries.filter((e) => e.transfer !== undefined).length, 0, 'nothing was sent');
  } finally {
    await wb.stop();
  }
});

test('a bad DICOM file fails the step with the file named; nothing is sent', async () => {
  const bad = join(dir, 'bad');
  await mkdir(bad);
  const [first] = await writeDicomSeries(ct(0), join(dir, 'whole'), { seed: 'bad', naming: 'bare' });
  const bytes = await readFile(first!);
  const truncated = join(bad, 'IM0001');
  await writeFile(truncated, bytes.subarray(0, bytes.length - 300));
  const wb = await startTestWorkbench({ allowedDirs: [elsewhere] });
  try {
    const err = await runLoad(wb, { file: truncated }).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    const info = classify(err).info;
    assert.ok(info.message.includes(truncated), info.message);
    assert.notEqual(info.code, 'INTERNAL_ERROR');
    assert.equal(wb.events.entries.filter((e) => e.transfer !== undefined).length, 0);
  } finally {
    await wb.stop();
  }
});

test('a where keyword wbplay does not know, or a value of the wrong kind, is an error at its line', async () => {
  const path = join(dir, 'where.yaml');
  await writeFile(
    path,
    `version: 1
steps:
  - load:
      file: phases
      where: { PatientName: "Doe*", SeriesNumber: 2 }
  - load:
      file: phases
      where: { SeriesNumber: [2, { a: 1 }] }
`,
  );
  const { diagnostics } = compilePlaybook(path, { env: {} });
  assert.deepEqual(
    diagnostics.map((d) => [d.code, d.span?.line, d.message]),
    [
      ['BAD_VALUE', 5, '`PatientName` is not a DICOM keyword `where` can select on'],
      ['WRONG_TYPE', 8, diagnostics[1]?.message],
    ],
  );
  assert.match(diagnostics[0]!.hint ?? '', /patient's name and birth date are never read/);
  assert.match(diagnostics[1]!.message, /item 2 of `SeriesNumber`/);
});

test('a DICOM SEG on a workbench that cannot read it arrives as one multi-label segmentation with its labels', async () => {
  const demo = join(dir, 'demo');
  await writeDemoDicom(demo);
  const wb = await startTestWorkbench({ allowedDirs: [elsewhere] });
  try {
    const ran = await runLoad(wb, { file: join(demo, DICOM_SEG_FILE) });
    assert.equal((ran.outcome.resolvedArgs as { sent: string }).sent, 'nrrd');
    const data = await wb.call('GET', `/datastorage/nodes/${ran.uid}/data`, {
      headers: { 'x-mitk-transfer-mode': 'direct' },
    });
    const sent = readImageBytes(new Uint8Array(data.bytes), 'nrrd');
    const labels = sent.segmentation?.groups.flatMap((g) => g.labels.map((l) => [l.value, l.name])) ?? [];
    assert.deepEqual(labels, [
      [1, 'tumour'],
      [2, 'organ'],
    ]);
    // As dcmqi does, the segmentation spans the slices its frames lie on, at their positions.
    const truth = labelPhantom(nominalStudy(1));
    const count = (v: Volume, value: number): number => v.frames[0]!.filter((x) => x === value).length;
    assert.deepEqual([sent.dims[0], sent.dims[1]], [96, 96]);
    assert.deepEqual([count(sent, 1), count(sent, 2)], [count(truth, 1), count(truth, 2)]);
    const firstLabelled = Math.floor(truth.frames[0]!.findIndex((x) => x !== 0) / (96 * 96));
    assert.equal(sent.origin[2], truth.origin[2] + firstLabelled * truth.spacing[2]);
  } finally {
    await wb.stop();
  }
});
