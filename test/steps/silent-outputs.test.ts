// Playbooks whose steps pass but whose output would be wrong say so: a capture of one colour, a
// capture with no reinit, a slice or position beyond the data, a colour a segmentation ignores.
// Where MITK refuses (a time step out of range) the step is an error naming the range.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-silent-'));
  await writeDemoData(join(dir, 'demo'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function playbook(name: string, steps: string): Promise<string> {
  await writeFile(join(dir, `${name}.yaml`), `version: 1\nvars: { data: demo }\nsteps:\n${steps}`);
  return `${name}.yaml`;
}

async function run(name: string, steps: string): Promise<{ code: number | null; output: string }> {
  const file = await playbook(name, steps);
  const r = await wbplay(['run', file, '--out', name, '--reporter', 'line'], dir);
  return { code: r.code, output: `${r.stdout}\n${r.stderr}` };
}

/** The notice printed for a step: notices come on the lines before the step's own line. */
function noticesBefore(output: string, stepLine: RegExp): string[] {
  const lines = output.split('\n');
  const at = lines.findIndex((l) => stepLine.test(l));
  assert.ok(at >= 0, `no line matches ${stepLine}:\n${output}`);
  const out: string[] = [];
  for (let i = at - 1; i >= 0 && lines[i]!.startsWith('notice: '); i--) out.unshift(lines[i]!);
  return out;
}

test('a capture without reinit passes with a warning naming the missing reinit; validate warns before the run', async () => {
  const steps = `  - load: { file: "\${data}/ct.nrrd", as: ct }
  - position: [56, 52, 36]
  - screenshot: { of: stdmulti/axial, save: "\${out}/axial.png" }
`;
  const r = await run('no-reinit', steps);
  assert.equal(r.code, 0, r.output);
  const [notice] = noticesBefore(r.output, /step 3 screenshot .* passed/);
  assert.match(notice ?? '', /capture of stdmulti\/axial is a single colour \(#000000\)/);
  assert.match(notice ?? '', /No `reinit` has fitted the windows to the data.*add `- reinit` after the `load` steps/);
  // The position step says the same, as it is where the crosshair went nowhere.
  assert.match(noticesBefore(r.output, /step 2 position/)[0] ?? '', /no `reinit` has fitted the windows to data/);

  const v = await wbplay(['validate', 'no-reinit.yaml'], dir);
  assert.equal(v.code, 0, 'a warning does not fail the check');
  assert.match(v.stdout, /^OK no-reinit\.yaml$/m);
  assert.match(
    v.stderr,
    /^warning\[NO_REINIT\]: `stdmulti\/axial` is captured with no `reinit` after the first `load`: the capture will show no data\n --> no-reinit\.yaml:6:5\n/m,
  );
  assert.match(v.stderr, /hint: add `- reinit` after the `load` steps, before the screenshot/);
  assert.match(v.stderr, /^1 warning$/m);
});

test('a capture with a reinit gets no warning, neither from validate nor from the run', async () => {
  const steps = `  - load: { file: "\${data}/ct.nrrd", as: ct }
  - reinit: { nodes: [ct] }
  - position: [56, 52, 36]
  - screenshot: { of: stdmulti/axial, save: "\${out}/axial.png" }
`;
  const r = await run('with-reinit', steps);
  assert.equal(r.code, 0, r.output);
  assert.doesNotMatch(r.output, /notice:/);
  const v = await wbplay(['validate', 'with-reinit.yaml'], dir);
  assert.equal(v.stderr, '');
});

test('a slice beyond the data passes with a warning naming the range and the slice MITK showed', async () => {
  // MITK's Stepper::SetPos (Modules/Core/include/mitkStepper.h) clamps the step to steps - 1 and
  // the REST controller checks only that the step is a non-negative integer (ParseSliceStepBody
  // in Modules/RESTAPI/src/mitkRenderingController.cpp): a warning, not an error.
  const r = await run(
    'slice',
    `  - load: { file: "\${data}/ct.nrrd", as: ct }
  - reinit
  - slice: { window: stdmulti/axial, step: 400 }
  - expect_state: { of: stdmulti/axial/slice, equals: { step: 31 } }
  - slice: { window: stdmulti/axial, step: 10 }
  - expect_state: { of: stdmulti/axial/slice, equals: { step: 10 } }
`,
  );
  assert.equal(r.code, 0, r.output);
  assert.deepEqual(noticesBefore(r.output, /step 3 slice/), [
    'notice: slice 400 is beyond stdmulti/axial, which has 32 slices (0-31); MITK showed slice 31 instead. Pick a step from 0 to 31.',
  ]);
  assert.deepEqual(noticesBefore(r.output, /step 5 slice/), []);
});

test('axial slices count from the top: slice 10 of the 32-slice demo CT is z = 52.5 mm', async () => {
  const r = await run(
    'slice-direction',
    `  - load: { file: "\${data}/ct.nrrd", as: ct }
  - reinit
  - slice: { window: stdmulti/axial, step: 10 }
  - expect_state: { of: position, equals: { position: [47.5, 47.5, 52.5] }, tolerance: 0.001 }
  - slice: { window: stdmulti/axial, step: 31 }
  - expect_state: { of: position, equals: { position: [47.5, 47.5, 0] }, tolerance: 0.001 }
`,
  );
  assert.equal(r.code, 0, r.output);
});

test('a position outside the scene passes with a warning naming the bounds; MITK keeps or clamps the slices', async () => {
  // MITK accepts any point (HandlePUT_selectedPosition checks only its shape); each navigator
  // then selects a slice by SliceNavigationHelper::SelectSliceByPoint (Modules/Core
  // mitkSliceNavigationHelper.cpp): none for a point before the stack's first plane (the
  // navigator keeps its slice), a slice past the last one that Stepper::SetPos clamps.
  const r = await run(
    'position',
    `  - load: { file: "\${data}/ct.nrrd", as: ct }
  - reinit
  - position: [560, 520, 360]
  - expect_state: { of: stdmulti/axial/slice, equals: { step: 16 } }
  - expect_state: { of: stdmulti/sagittal/slice, equals: { step: 95 } }
  - position: [56, 52, -40]
  - expect_state: { of: stdmulti/axial/slice, equals: { step: 31 } }
  - position: [56, 52, 36]
`,
  );
  assert.equal(r.code, 0, r.output);
  const [notice] = noticesBefore(r.output, /step 3 position/);
  assert.match(
    notice ?? '',
    /^notice: position \[560, 520, 360\] is outside the scene's bounds \[-0\.5, -0\.5, -1\.25\] to \[95\.5, 95\.5, 78\.75\] \(x 560 is outside -0\.5 to 95\.5; y 520 is outside -0\.5 to 95\.5; z 360 is outside -1\.25 to 78\.75, mm\)/,
  );
  assert.match(notice ?? '', /Pick a position inside the bounds\.$/);
  assert.match(noticesBefore(r.output, /step 6 position/)[0] ?? '', /z -40 is outside -1\.25 to 78\.75/);
  assert.deepEqual(noticesBefore(r.output, /step 8 position/), []);
});

test('a time step beyond the data is an error naming the range, as MITK refuses it', async () => {
  // HandlePUT_selectedTime (Modules/RESTAPI/src/mitkRenderingController.cpp) answers 422
  // "Resolved time step N is out of range [0, S)." instead of letting the stepper clamp.
  const r = await run(
    'time',
    `  - load: { file: "\${data}/perfusion-4d.nrrd", as: pet }
  - reinit
  - time: { step: 40 }
`,
  );
  assert.notEqual(r.code, 0);
  assert.match(r.output, /step 3 time select time step 40 … error/);
  assert.match(r.output, /Resolved time step 40 is out of range \[0, \d+\)\./);
});

test('a colour on a multi-label segmentation passes with a warning naming what works; opacity applies', async () => {
  const r = await run(
    'label-colour',
    `  - load: { file: "\${data}/ct.nrrd", as: ct }
  - load: { file: "\${data}/tumour-label.nrrd", as: tumour, parent: ct, color: [0, 0, 1], opacity: 0.6 }
  - reinit: { nodes: [ct] }
  - set: { node: tumour, color: [0, 1, 0] }
  - set: { node: ct, color: [1, 1, 1] }
  - expect_state: { of: node:tumour, equals: { opacity: 0.6 }, tolerance: 0.001 }
`,
  );
  assert.equal(r.code, 0, r.output);
  const expected =
    "notice: `color` does nothing on tumour-label: it is a multi-label segmentation, which MITK draws in its labels' own colours. Remove `color`; `opacity` and `visible` do work on the whole segmentation, and a label's colour or visibility is part of the segmentation file (see docs/display-properties.md).";
  assert.deepEqual(noticesBefore(r.output, /step 2 load/), [expected]);
  assert.deepEqual(noticesBefore(r.output, /step 4 set/), [expected]);
  // On an image, `color` tints it: no warning.
  assert.deepEqual(noticesBefore(r.output, /step 5 set/), []);
});
