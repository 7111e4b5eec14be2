// The end of a run, as a user reads it in a terminal or a CI log: every failed check of every
// case listed under its case, each image mismatch's pixel counts said once, a `tolerance` hint
// only for a number slightly off, what the run wrote counted with its paths, and the reports
// of a playbook that keeps its files in a folder of its own written there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir = '';
let demo = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-run-end-'));
  demo = join(dir, 'demo');
  await writeDemoData(demo);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The example regression playbook and its goldens in a folder of their own, changed by `edit`. */
async function regression(name: string, edit: (text: string) => string, goldens = true): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  if (goldens) await cp(join(root, 'playbooks', 'goldens'), join(folder, 'goldens'), { recursive: true });
  const text = await readFile(join(root, 'playbooks', 'regression.yaml'), 'utf8');
  await writeFile(join(folder, 'regression.yaml'), edit(text));
  return folder;
}

/** The lines a failed step prints under its own line. */
function stepBlock(stdout: string, step: number): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`Regression › step ${step} `));
  assert.ok(start >= 0, `step ${step} is reported`);
  const block: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('    ')) break;
    block.push(line);
  }
  return block;
}

test('a case with four changed images and two wrong states lists all six under the case, each figure said once', async () => {
  // The tumour fully opaque changes every view; the slice expected is one MITK never shows.
  const folder = await regression('four-images', (t) =>
    t
      .replace(/(as: tumour, parent: ct,[^}]*)opacity: 0\.6 \}/, '$1opacity: 1 }')
      .replace('equals: { step: 16 } }', 'equals: { step: 385 } }'),
  );
  const r = await wbplay(['run', 'regression.yaml', '--out', 'out'], folder, { WBPLAY_DEMO: demo });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const failures = r.stdout.slice(r.stdout.indexOf('\nFailures:\n'));
  assert.match(failures, /^ {2}Regression: 6 failed steps$/m);
  for (const [step, code] of [
    [8, 'STATE_MISMATCH'],
    [10, 'STATE_MISMATCH'],
    [11, 'IMAGE_MISMATCH'],
    [12, 'IMAGE_MISMATCH'],
    [13, 'IMAGE_MISMATCH'],
    [14, 'IMAGE_MISMATCH'],
  ] as const)
    assert.match(
      failures,
      new RegExp(`^ {4}step ${step} expect_(state|image): ${code}: .*\\(regression\\.yaml:\\d+:5\\)$`, 'm'),
    );
  for (const step of [11, 12, 13, 14]) {
    const block = stepBlock(r.stdout, step);
    assert.equal(block.filter((l) => /pixels differ/.test(l)).length, 1, block.join('\n'));
  }
  // A slice off by 369 is another slice: a tolerance would only hide it.
  const slice = stepBlock(r.stdout, 8);
  assert.match(slice.join('\n'), /expected 385, got 16 \(off by 369\)/);
  assert.doesNotMatch(slice.join('\n'), /tolerance/);
  assert.match(
    slice.join('\n'),
    /hint: the workbench shows another value: correct `equals`, or the earlier step that sets it/,
  );
  const opacity = stepBlock(r.stdout, 10).join('\n');
  assert.match(opacity, /opacity: expected 0\.6, got 1 \(off by 0\.4\)/);
  assert.doesNotMatch(opacity, /tolerance/);
});

test('a number slightly off gets the `tolerance` hint', async () => {
  const folder = await regression('near-miss', (t) =>
    t
      .replace(/(as: tumour, parent: ct,[^}]*)opacity: 0\.6 \}/, '$1opacity: 0.6005 }')
      .replace('tolerance: 0.001 }', 'tolerance: 0.0001 }'),
  );
  const r = await wbplay(['run', 'regression.yaml', '--out', 'out'], folder, { WBPLAY_DEMO: demo });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const block = stepBlock(r.stdout, 10).join('\n');
  assert.match(block, /opacity: expected 0\.6, got 0\.6005/);
  assert.match(block, /hint: numbers may differ by at most 0\.0001 \(set `tolerance` to allow more\)/);
});

test('a first run that writes its goldens says how many and where, before the verdict', async () => {
  const folder = await regression('first-run', (t) => t, false);
  const r = await wbplay(['run', 'regression.yaml', '--out', 'out'], folder, { WBPLAY_DEMO: demo });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /\nWrote 4 goldens \(compared with nothing this run: check them, then commit them\): goldens\/axial\.png, goldens\/coronal\.png, goldens\/sagittal\.png, goldens\/3d\.png\nPASSED 1 case/,
  );
  assert.match(r.stdout, /\nReport: out\/report\.html\n$/);
});

test("without --out a playbook's own `out` holds its reports too, so two playbooks keep two reports", async () => {
  const project = join(dir, 'project');
  await mkdir(join(project, 'playbooks'), { recursive: true });
  const playbook = (name: string): string => `version: 1
name: ${name}
vars:
  out: ../wbplay-out/${name}
steps:
  - load: { file: ${JSON.stringify(join(demo, 'ct.nrrd'))}, as: ct }
  - reinit: { nodes: [ct] }
  - screenshot: { of: stdmulti/axial, save: "\${out}/axial.png" }
`;
  await writeFile(join(project, 'playbooks', 'one.yaml'), playbook('one'));
  await writeFile(join(project, 'playbooks', 'two.yaml'), playbook('two'));
  const one = await wbplay(['run', 'playbooks/one.yaml'], project);
  assert.equal(one.code, 0, one.stdout + one.stderr);
  assert.match(one.stdout, /^Wrote 1 screenshot: wbplay-out\/one\/axial\.png$/m);
  assert.match(one.stdout, /\nReport: wbplay-out\/one\/report\.html\n$/);
  const two = await wbplay(['run', 'playbooks/two.yaml'], project);
  assert.equal(two.code, 0, two.stdout + two.stderr);
  assert.match(two.stdout, /\nReport: wbplay-out\/two\/report\.html\n$/);
  for (const name of ['one', 'two']) {
    assert.ok(existsSync(join(project, 'wbplay-out', name, 'axial.png')), `${name}'s capture`);
    const report = JSON.parse(await readFile(join(project, 'wbplay-out', name, 'report.json'), 'utf8')) as {
      cases: { name: string }[];
    };
    assert.equal(report.cases[0]!.name, name, `${name}'s report is its own`);
  }
  assert.ok(!existsSync(join(project, 'wbplay-out', 'report.json')), 'no report of either lies outside their folders');

  // `--out` still decides, for the reports and for `${out}`.
  const chosen = await wbplay(['run', 'playbooks/one.yaml', '--out', 'elsewhere'], project);
  assert.equal(chosen.code, 0, chosen.stdout + chosen.stderr);
  assert.ok(existsSync(join(project, 'elsewhere', 'report.json')));
  assert.ok(existsSync(join(project, 'elsewhere', 'axial.png')));
});
