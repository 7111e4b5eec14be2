// Every kind of write a run makes, failed on purpose through the file layer's seam (and, where
// the machine allows it, on a real full disk): the failure is told where it happened, with the
// path and the system's reason; no step passes without its file; nothing is journalled as done
// without its files; a rerun redoes exactly the studies that lost files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { setWriteFault } from '../../src/files/atomic-write.js';
import type { RunResult, StepResult } from '../../src/result/result.js';
import { runPlans, type RunOptions } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { cohortPlan, FAST_RETRY, makeCohort, wbplay, type Cohort } from '../helpers/cohort.js';

let dir = '';
let cohort: Cohort;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-write-failures-'));
  cohort = await makeCohort(dir, 3);
});

afterEach(() => setWriteFault(undefined));

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A system error as Node raises it. */
function systemError(code: string, text: string): Error {
  return Object.assign(new Error(`${code}: ${text}, write`), { code });
}

/** Fails writes whose path ends with `suffix` (forward slashes), as `code` would. */
function failWrites(suffix: string, code = 'ENOSPC', text = 'no space left on device'): void {
  setWriteFault((path) => (path.split('\\').join('/').endsWith(suffix) ? systemError(code, text) : undefined));
}

async function run(
  plan: RunOptions['plans'][number],
  out: string,
  extra: Partial<RunOptions> = {},
): Promise<RunResult> {
  return runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: out,
    retry: FAST_RETRY,
    ...extra,
  });
}

/** A playbook that loads the first study's CT, reinits, then does `step`. */
async function oneStudy(name: string, step: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  const steps = ['  - load: { file: data/study-001/ct.nrrd, as: ct }', '  - reinit', step];
  await writeFile(file, ['version: 1', `name: ${name}`, 'steps:', ...steps, ''].join('\n'));
  return file;
}

const statusesOf = async (r: RunResult): Promise<Record<string, string>> =>
  Object.fromEntries((await r.cases.all()).map((c) => [c.id, c.status]));

function journalled(out: string): Promise<string[]> {
  return readFile(join(out, 'wbplay-journal.jsonl'), 'utf8').then(
    (text) =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { study: string }).study.split('#')[1]!)
        .sort(),
    () => [],
  );
}

test("a screenshot that cannot be written errs its step with the path and the system's reason; the study is not journalled; a rerun redoes exactly it", async () => {
  const out = join(dir, 'screenshot');
  const seen: StepResult[] = [];
  failWrites('study-002/sagittal.png');
  const first = await run(cohortPlan(cohort, out), out, {
    reporter: { onStepEnd: (c, s) => void (c.id === 'study-002' && seen.push(s)) },
  });
  assert.deepEqual(await statusesOf(first), { 'study-001': 'passed', 'study-002': 'error', 'study-003': 'passed' });
  const study2 = (await first.cases.all())[1]!;
  const failed = study2.steps.find((s) => s.status === 'error');
  assert.equal(failed?.kind, 'screenshot');
  assert.equal(failed?.error?.code, 'OUTPUT_NOT_WRITTEN');
  assert.equal(
    failed?.error?.message,
    `could not write ${join(out, 'study-002', 'sagittal.png')}: no space left on device (ENOSPC)`,
  );
  assert.match(failed?.error?.hint ?? '', /free some space/);
  // What the reporters saw is what the report says: the step was never reported passed.
  assert.equal(
    seen.find((s) => s.index === failed?.index && s.status === 'passed'),
    undefined,
  );
  // No step that passed lacks its file.
  for (const c of await first.cases.all())
    for (const s of c.steps.filter((x) => x.status === 'passed' && x.kind === 'screenshot'))
      for (const a of s.artefacts) await stat(join(out, a.path));
  assert.deepEqual(await journalled(out), ['study-001', 'study-003']);

  setWriteFault(undefined);
  const again = await run(cohortPlan(cohort, out), out);
  const ran = (await again.cases.all()).filter((c) => c.status === 'passed' && !c.upToDate).map((c) => c.id);
  assert.deepEqual(ran, ['study-002'], 'only the study that lost a file runs again');
  assert.deepEqual(await journalled(out), ['study-001', 'study-002', 'study-003']);
});

test('a golden that cannot be written errs its check with the path and the reason', async () => {
  const out = join(dir, 'golden');
  const file = await oneStudy('golden', '  - expect_image: { of: stdmulti/axial, golden: goldens/axial.png }');
  failWrites('goldens/axial.png', 'EROFS', 'read-only file system');
  const result = await run(loadPlaybook(file), out, { golden: { update: 'missing', ci: false } });
  const check = (await result.cases.all())[0]!.steps[2]!;
  assert.equal(check.status, 'error');
  assert.match(check.error?.message ?? '', /could not write .*goldens\/axial\.png: read-only file system \(EROFS\)/);
  await assert.rejects(stat(join(dir, 'goldens', 'axial.png')), { code: 'ENOENT' });
});

test('a figure that cannot be written errs the figure step', async () => {
  const out = join(dir, 'figure');
  const file = await oneStudy(
    'figure',
    `  - figure: { save: ${join(out, 'fig.png')}, width: 40mm, dpi: 100, panels: [{ window: stdmulti/axial }] }`,
  );
  failWrites('fig.png', 'EACCES', 'permission denied');
  const result = await run(loadPlaybook(file), out);
  const figure = (await result.cases.all())[0]!.steps[2]!;
  assert.equal(figure.status, 'error');
  assert.match(figure.error?.message ?? '', /could not write .*fig\.png: permission denied \(EACCES\)/);
  assert.match(figure.error?.hint ?? '', /writable/);
});

test("a contact sheet, a journal or a trace that cannot be written is among the run's unwritten files", async () => {
  const out = join(dir, 'record');
  const file = join(dir, 'sheet.yaml');
  await writeFile(
    file,
    (await readFile(cohort.playbook, 'utf8')).replace(
      'steps:',
      'contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  save: "${out}/sheet.png"\nsteps:',
    ),
  );
  for (const [suffix, name] of [
    ['sheet.png', 'sheet.png'],
    ['wbplay-journal.jsonl', 'wbplay-journal.jsonl'],
    ['trace.jsonl', 'trace.jsonl'],
  ] as const) {
    failWrites(suffix);
    const result = await run(loadPlaybook(file, { vars: { out } }), out, { trace: true, force: true });
    assert.equal(result.status, 'passed', `${name}: the cases themselves passed`);
    const lost = (result.unwritten ?? []).filter((u) => basename(u.path) === name);
    assert.ok(lost.length > 0, `${name} is named among ${JSON.stringify(result.unwritten)}`);
    assert.match(lost[0]!.message, /no space left on device \(ENOSPC\)/);
  }
});

test('a real full disk: the run exits 3 naming what was lost, and after space is freed the rerun completes exactly the lost studies', async (t) => {
  const mount = join(dir, 'small');
  await mkdir(mount);
  try {
    // 40 kB hold the first study's screenshots and not all the rest.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=40k', 'tmpfs', mount], { stdio: 'ignore' });
  } catch {
    // Mounting needs privileges this machine may not give: the seam above covers every write then.
    t.diagnostic('tmpfs could not be mounted here; the seam-based tests above cover the same writes');
    return;
  }
  t.after(() => execFileSync('umount', [mount]));
  const out = join(mount, 'out');
  const args = ['run', 'cohort.yaml', '--out', out, '--var', `out=${out}`, '--reporter', 'line'];
  const full = await wbplay(args, cohort.dir);
  assert.equal(full.code, 3, full.stderr);
  assert.match(full.stdout, /OUTPUT_NOT_WRITTEN: could not write .*: no space left on device \(ENOSPC\)/);
  assert.doesNotMatch(full.stdout + full.stderr, /^Report: /m);
  const done = await journalled(out);
  assert.ok(done.length < cohort.studies.length, 'the disk filled before the end');

  execFileSync('mount', ['-o', 'remount,size=20m', mount]);
  const rerun = await wbplay(args, cohort.dir);
  assert.equal(rerun.code, 0, rerun.stderr);
  const ran = [...rerun.stdout.matchAll(/· (study-\d+) passed in/g)].map((m) => m[1]).sort();
  assert.deepEqual(
    ran,
    cohort.studies.map((s) => s.name).filter((s) => !done.includes(s)),
  );
  assert.match(rerun.stdout, /^Report: /m);
});
