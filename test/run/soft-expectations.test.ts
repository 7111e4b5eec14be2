// Checks judge and record, and the case goes on: one run shows every failing image of a case.
// --max-failures stops a run after N failed cases; --update-goldens=changed rewrites exactly the
// goldens that failed.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { FAST_RETRY } from '../helpers/cohort.js';

let dir = '';
const VIEWS = ['axial', 'sagittal', 'coronal', '3d'] as const;

function playbook(position: string): string {
  return [
    'version: 1',
    'name: Four views',
    'steps:',
    '  - load: { file: data/ct.nrrd, as: ct }',
    '  - reinit',
    `  - position: ${position}`,
    ...VIEWS.map((v) => `  - expect_image: { of: stdmulti/${v}, golden: goldens/${v}.png }`),
    '  - expect_state: { of: node:ct, equals: { opacity: 0.5 } }',
    '  - screenshot: { of: stdmulti/axial, save: "${out}/after.png" }',
    '',
  ].join('\n');
}

async function run(
  position: string,
  update: 'missing' | 'changed' | 'none',
  out: string,
): Promise<Awaited<ReturnType<typeof runPlans>>> {
  await writeFile(join(dir, 'four.yaml'), playbook(position));
  const plan = loadPlaybook(join(dir, 'four.yaml'), { vars: { out: join(dir, out) } });
  return runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: join(dir, out),
    retry: FAST_RETRY,
    golden: { update, ci: false },
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-soft-'));
  await writeDemoData(join(dir, 'data'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('every failing check of a case is judged and recorded, the steps after them run, and the case fails', async () => {
  await run('[56, 52, 36]', 'missing', 'first');
  // The crosshair moves in x: the sagittal view and the crosshair lines of the others change.
  const result = await run('[40, 52, 36]', 'none', 'moved');
  const steps = (await result.cases.all())[0]!.steps;
  assert.equal((await result.cases.all())[0]!.status, 'failed');
  const checks = steps.filter((s) => s.kind === 'expect_image');
  assert.equal(checks.length, 4);
  assert.ok(
    checks.filter((s) => s.status === 'failed').length >= 2,
    checks.map((s) => `${s.description}: ${s.status}`).join('\n'),
  );
  assert.deepEqual(
    checks.map((s) => s.status === 'skipped'),
    [false, false, false, false],
    'no check was skipped',
  );
  assert.equal(steps.find((s) => s.kind === 'expect_state')!.status, 'failed');
  assert.equal(steps.at(-1)!.status, 'passed', 'the screenshot after the failed checks ran');
  await stat(join(dir, 'moved', 'after.png'));
});

test('--update-goldens=changed rewrites exactly the goldens that failed', async () => {
  const before = new Map<string, Buffer>();
  for (const v of VIEWS) before.set(v, await readFile(join(dir, 'goldens', `${v}.png`)));
  const failing = (await (await run('[40, 52, 36]', 'none', 'check')).cases.all())[0]!.steps
    .filter((s) => s.kind === 'expect_image' && s.status === 'failed')
    .map((s) => s.image!.golden);
  const updated = await run('[40, 52, 36]', 'changed', 'update');
  const rewritten = (await updated.cases.all())[0]!.steps
    .filter((s) => s.image?.outcome === 'updated')
    .map((s) => s.image!.golden);
  assert.deepEqual(rewritten.sort(), failing.sort());
  for (const v of VIEWS) {
    const now = await readFile(join(dir, 'goldens', `${v}.png`));
    const wasFailing = failing.some((g) => g.endsWith(`${v}.png`));
    assert.equal(now.equals(before.get(v)!), !wasFailing, `${v}.png ${wasFailing ? 'rewritten' : 'untouched'}`);
  }
});

test('--max-failures N stops starting cases after N failed cases; the rest are skipped with the reason', async () => {
  await writeFile(join(dir, 'studies.csv'), 'name\none\ntwo\nthree\nfour\n');
  await writeFile(
    join(dir, 'many.yaml'),
    'version: 1\nname: Many\nforeach:\n  csv: studies.csv\nsteps:\n  - load: { file: data/ct.nrrd, as: ct }\n  - expect_state: { of: node:ct, equals: { opacity: 0.5 } }\n',
  );
  const plan = loadPlaybook(join(dir, 'many.yaml'), { vars: { out: join(dir, 'many') } });
  const result = await runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: join(dir, 'many'),
    retry: FAST_RETRY,
    maxFailures: 2,
  });
  assert.deepEqual(
    (await result.cases.all()).map((c) => c.status),
    ['failed', 'failed', 'skipped', 'skipped'],
  );
  assert.match(
    (await result.cases.all())[2]!.steps[0]!.skippedReason!,
    /--max-failures stopped the run after 2 failed cases/,
  );
});
