// The runner against a real reference workbench on a loopback port, with scripted faults.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { readProvenance } from '../../src/files/provenance.js';
import { loadPlaybook } from '../../src/compile/index.js';
import type { Reporter } from '../../src/result/reporter.js';
import type { RunResult, StepResult } from '../../src/result/result.js';
import { runPlans, type RunOptions } from '../../src/run/runner.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { startTestWorkbench, type TestWorkbench } from '../helpers/workbench.js';

const FAST_RETRY = { retries: 2, minDelayMs: 5, maxDelayMs: 10, factor: 1 };
let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-runner-'));
  await writeDemoData(join(dir, 'data'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a playbook over the demo data and compiles it. */
async function playbook(
  name: string,
  steps: string,
  vars: Record<string, string> = {},
  head = '',
): Promise<ReturnType<typeof loadPlaybook>> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, `version: 1\nname: ${name}\n${head}vars:\n  data: data\n  out: out-${name}\nsteps:\n${steps}`);
  return loadPlaybook(file, { vars });
}

/** Every event a reporter saw, by name. */
function recorder(): Reporter & { events: string[]; notices: string[] } {
  const events: string[] = [];
  const notices: string[] = [];
  return {
    events,
    notices,
    onRunStart: () => void events.push('runStart'),
    onCaseStart: () => void events.push('caseStart'),
    onStepStart: () => void events.push('stepStart'),
    onStepRetry: () => void events.push('stepRetry'),
    onStepEnd: () => void events.push('stepEnd'),
    onCaseEnd: () => void events.push('caseEnd'),
    onNotice: (m) => void notices.push(m),
    onRunEnd: () => void events.push('runEnd'),
  };
}

async function run(wb: TestWorkbench, plans: RunOptions['plans'], extra: Partial<RunOptions> = {}): Promise<RunResult> {
  return runPlans({
    plans,
    workbenches: { urls: [wb.url] },
    reporter: {},
    outputDir: join(dir, 'report'),
    retry: FAST_RETRY,
    ...extra,
  });
}

async function steps(result: RunResult): Promise<StepResult[]> {
  return (await result.cases.all()).flatMap((c) => c.steps);
}

const LOAD = '  - load: { file: "${data}/ct.nrrd", as: ct, name: CT }\n';

test('a playbook runs in order: aliases become UIDs, screenshots carry provenance, reporters see every event', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const plan = await playbook(
    'basic',
    `${LOAD}  - set: { node: ct, opacity: 0.5 }\n  - reinit\n  - screenshot: { of: stdmulti/axial, save: "\${out}/axial.png" }\n`,
  );
  const reporter = recorder();
  const result = await run(wb, [plan], { reporter });

  assert.equal(result.status, 'passed');
  assert.deepEqual(result.summary, { total: 1, passed: 1, failed: 0, error: 0, skipped: 0 });
  const [ct] = await connect({ url: wb.url }).nodes.list({ hierarchy: 'all' });
  assert.equal(ct?.name, 'CT', 'the node was renamed from its marker to its name');
  const [load, set, , shot] = await steps(result);
  assert.equal((load?.resolvedArgs as { uid: string }).uid, ct.uid);
  assert.deepEqual((set?.resolvedArgs as { node: unknown }).node, { uid: ct.uid });
  assert.deepEqual(
    set?.args,
    { node: { ref: 'ct' }, opacity: 0.5 },
    'the planned step is kept beside the resolved one',
  );

  const png = await readFile(join(dir, 'out-basic', 'axial.png'));
  const provenance = readProvenance(png);
  const info = await connect({ url: wb.url }).info();
  assert.equal(provenance?.playbookSha256, plan.playbook.sha256);
  assert.match(provenance?.step ?? '', /^4: capture stdmulti\/axial/);
  assert.equal(provenance?.engine_version, info.engine_version);
  assert.equal(provenance?.api_version, info.api_version);
  const ctHash = createHash('sha256')
    .update(await readFile(join(dir, 'data', 'ct.nrrd')))
    .digest('hex');
  assert.equal(provenance?.inputs?.[join(dir, 'data', 'ct.nrrd')], ctHash);
  assert.deepEqual(
    shot?.artefacts,
    [{ kind: 'screenshot', path: join('..', 'out-basic', 'axial.png'), provenance }],
    'the report repeats the provenance',
  );
  assert.deepEqual(result.provenance.workbench?.engine_version, info.engine_version);

  assert.equal(reporter.events[0], 'runStart');
  assert.equal(reporter.events.at(-1), 'runEnd');
  assert.equal(reporter.events.filter((e) => e === 'stepEnd').length, 4);
  assert.deepEqual(
    reporter.events.filter((e) => e.startsWith('case')),
    ['caseStart', 'caseEnd'],
  );
});

test('a 503 is retried with backoff and every attempt is recorded', async (t) => {
  const wb = await startTestWorkbench({ faults: '503@POST /api/v1/datastorage/nodes#1' });
  t.after(() => wb.stop());
  const reporter = recorder();
  const result = await run(wb, [await playbook('retry', LOAD)], { reporter });
  const [load] = await steps(result);
  assert.equal(load?.status, 'passed');
  assert.equal(load?.attempts.length, 2);
  assert.equal(load?.attempts[0]?.error?.status, 503);
  assert.equal(load?.attempts[1]?.error, undefined);
  assert.ok(reporter.events.includes('stepRetry'));
});

test('a create whose answer was lost is found by its marker, not made twice', async (t) => {
  const wb = await startTestWorkbench({ faults: 'drop-after@POST /api/v1/datastorage/nodes#1' });
  t.after(() => wb.stop());
  const result = await run(wb, [await playbook('lost', LOAD)]);
  const [load] = await steps(result);
  assert.equal(load?.status, 'passed');
  assert.equal(load?.attempts.length, 2);
  assert.match(load?.notices[0] ?? '', /answer to an earlier attempt was lost/);
  const nodes = await connect({ url: wb.url }).nodes.list({ hierarchy: 'all' });
  assert.deepEqual(
    nodes.map((n) => n.name),
    ['CT'],
    'exactly one node, under its own name',
  );
});

test('a request the workbench refuses is not retried, and the rest of the case is skipped with the reason', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const plan = await playbook(
    'refused',
    `${LOAD}  - remove: { node: "uid:no-such-node" }\n  - screenshot: { of: app, save: "\${out}/app.png" }\n`,
  );
  const result = await run(wb, [plan]);
  const [, remove, shot] = await steps(result);
  assert.equal(result.status, 'error');
  assert.equal(remove?.status, 'error');
  assert.equal(remove?.attempts.length, 1);
  assert.equal(remove?.error?.status, 404);
  assert.equal(remove?.error?.code, 'NODE_NOT_FOUND');
  assert.equal(shot?.status, 'skipped');
  assert.equal(shot?.skippedReason, `step 2 (remove, line ${remove?.span.line}) could not run`);
  await assert.rejects(stat(join(dir, 'out-refused', 'app.png')));
});

test('a node name that the workbench does not hold is an error that says so', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const result = await run(wb, [await playbook('byname', `${LOAD}  - set: { node: "name:Nope", visible: false }\n`)]);
  const [, set] = await steps(result);
  assert.equal(set?.status, 'error');
  assert.equal(set?.error?.code, 'NODE_NOT_FOUND');
  assert.match(set?.error?.message ?? '', /no node named `Nope`/);
});

test('a step that takes longer than the timeout errs and is not retried', async (t) => {
  const wb = await startTestWorkbench({
    faults: 'stall@GET /api/v1/rendering/editors/stdmulti/windows/axial/screenshot',
  });
  t.after(() => wb.stop());
  const result = await run(
    wb,
    [await playbook('stall', `${LOAD}  - screenshot: { of: stdmulti/axial, save: "\${out}/a.png" }\n`)],
    { timeoutMs: 400 },
  );
  const [, shot] = await steps(result);
  assert.equal(shot?.status, 'error');
  assert.equal(shot?.error?.code, 'STEP_TIMEOUT');
  assert.equal(shot?.attempts.length, 1);
});

test('expect_image: a missing golden is written, then matches; a change fails with expected, actual and diff; `changed` rewrites it; CI never writes one implicitly', async (t) => {
  // A fresh workbench per run: runs one after another on one workbench would stack their nodes.
  const fresh = async (): Promise<TestWorkbench> => {
    const wb = await startTestWorkbench();
    t.after(() => wb.stop());
    return wb;
  };
  const golden = join(dir, 'goldens', 'axial.png');
  const steps_ = `${LOAD}  - reinit\n  - set: { node: ct, opacity: "\${opacity}" }\n  - expect_image: { of: stdmulti/axial, golden: goldens/axial.png, max_diff_pixels: 10 }\n`;
  const at = async (opacity: string) => playbook('golden', steps_, { opacity });
  const image = async (r: RunResult) => (await steps(r))[3];

  const reporter = recorder();
  const first = await run(await fresh(), [await at('1.0')], { reporter, golden: { update: 'missing', ci: false } });
  assert.equal(first.status, 'passed');
  assert.equal((await image(first))?.image?.outcome, 'written');
  assert.match(reporter.notices.join('\n'), /golden .*axial\.png was missing and has been written/);
  const written = await readFile(golden);

  const same = await run(await fresh(), [await at('1.0')], { golden: { update: 'missing', ci: false } });
  assert.equal(same.status, 'passed');
  assert.equal((await image(same))?.image?.outcome, 'identical');

  const changed = await run(await fresh(), [await at('0.3')], { golden: { update: 'missing', ci: false } });
  const failed = await image(changed);
  assert.equal(changed.status, 'failed');
  assert.equal(failed?.status, 'failed');
  assert.equal(failed?.error?.code, 'IMAGE_MISMATCH');
  assert.ok((failed?.image?.diffPixels ?? 0) > 10, 'the measured difference is reported');
  assert.deepEqual(failed?.image?.tolerance, { threshold: 0.1, maxDiffPixels: 10 });
  assert.deepEqual(
    failed?.artefacts.map((a) => a.kind),
    ['expected', 'actual', 'diff'],
  );
  for (const a of failed?.artefacts ?? []) await stat(join(dir, 'report', a.path));
  assert.equal(failed?.attempts.length, 1, 'a mismatch is never retried');
  assert.deepEqual(await readFile(golden), written, 'a failing comparison leaves the golden alone');

  const updated = await run(await fresh(), [await at('0.3')], { golden: { update: 'changed', ci: false } });
  assert.equal(updated.status, 'passed');
  assert.equal((await image(updated))?.image?.outcome, 'updated');
  assert.notDeepEqual(await readFile(golden), written);

  await rm(golden);
  const ci = await run(await fresh(), [await at('0.3')], { golden: { update: 'none', ci: true } });
  assert.equal(ci.status, 'failed');
  assert.equal((await image(ci))?.error?.code, 'GOLDEN_MISSING');
  assert.match((await image(ci))?.error?.message ?? '', /in CI it is never recorded implicitly/);
  await assert.rejects(stat(golden));
});

test('expect_state compares only the fields given, within the tolerance, and is never retried', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const plan = await playbook(
    'state',
    `${LOAD}  - reinit\n  - slice: { window: stdmulti/axial, step: 3 }\n  - expect_state: { of: stdmulti/axial/slice, equals: { step: 3 } }\n` +
      `  - expect_state: { of: node:ct, equals: { name: CT, opacity: 1.0 } }\n  - expect_state: { of: stdmulti/axial/slice, equals: { step: 4 } }\n`,
  );
  const result = await run(wb, [plan]);
  const [, , , ok, node, wrong] = await steps(result);
  assert.equal(ok?.status, 'passed');
  assert.equal(node?.status, 'passed');
  assert.equal(wrong?.status, 'failed');
  assert.equal(wrong?.error?.code, 'STATE_MISMATCH');
  assert.match(wrong?.error?.message ?? '', /step: expected 4, got 3/);
  assert.equal(wrong?.attempts.length, 1);
});

test('an interrupted run aborts the current step, skips the rest and still returns its result', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const controller = new AbortController();
  const plan = await playbook(
    'interrupt',
    `${LOAD}  - wait: { ms: 20000 }\n  - screenshot: { of: app, save: "\${out}/app.png" }\n`,
  );
  const reporter: Reporter = {
    onStepStart: (_c, s) => void (s.kind === 'wait' && setTimeout(() => controller.abort(), 50)),
  };
  const result = await run(wb, [plan], { reporter, signal: controller.signal });
  const [load, wait, shot] = await steps(result);
  assert.equal(load?.status, 'passed');
  // Stopped, not broken: the step that was cut short is skipped, and so is the case.
  assert.equal(wait?.status, 'skipped');
  assert.equal(wait?.skippedReason, 'the run was interrupted during this step');
  assert.equal(shot?.status, 'skipped');
  assert.ok(wait && wait.durationMs < 20000);
  assert.equal(result.status, 'interrupted');
  assert.equal((await result.cases.all())[0]?.status, 'skipped');
});

test('without --fail-fast every case runs; with it, the cases after a failure are skipped', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  await writeFile(join(dir, 'data', 'broken.nrrd'), 'NRRD0004\nthis is no header\n');
  await writeFile(join(dir, 'studies.csv'), 'name,file\na,broken.nrrd\nb,ct.nrrd\nc,ct.nrrd\n');
  const plan = await playbook(
    'failfast',
    '  - load: { file: "${data}/${study.file}", as: ct }\n',
    {},
    'foreach:\n  csv: studies.csv\n',
  );
  const all = await run(wb, [plan], { outputDir: join(dir, 'ff-all') });
  assert.deepEqual(
    (await all.cases.all()).map((c) => c.status),
    ['error', 'passed', 'passed'],
  );
  const fast = await run(wb, [plan], { failFast: true, outputDir: join(dir, 'ff-fast') });
  assert.deepEqual(
    (await fast.cases.all()).map((c) => c.status),
    ['error', 'skipped', 'skipped'],
  );
  assert.match((await fast.cases.all())[1]?.steps[0]?.skippedReason ?? '', /--fail-fast/);
});

test('a workbench that stops answering leaves the pool and its case runs again on another one', async (t) => {
  const healthy = await startTestWorkbench();
  // It answers who it is and what its scene holds, then hangs at the first load and at the health probe.
  const hung = await startTestWorkbench({
    faults: 'stall@POST /api/v1/datastorage/nodes;stall@GET /api/v1/health',
  });
  t.after(() => Promise.all([healthy.stop(), hung.stop()]));
  await writeFile(join(dir, 'pair.csv'), 'name\none\ntwo\nthree\n');
  const plan = await playbook(
    'hung',
    `${LOAD}  - reinit\n  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}.png" }\n`,
    {},
    'foreach:\n  csv: pair.csv\n',
  );
  const reporter = recorder();
  const result = await runPlans({
    plans: [plan],
    workbenches: { urls: [hung.url, healthy.url] },
    reporter,
    outputDir: join(dir, 'hung-report'),
    retry: FAST_RETRY,
    timeoutMs: 500,
  });
  assert.deepEqual(
    (await result.cases.all()).map((c) => c.status),
    ['passed', 'passed', 'passed'],
    JSON.stringify(
      (await result.cases.all())[0]?.steps.map((s) => s.error),
      null,
      1,
    ),
  );
  assert.deepEqual(new Set((await result.cases.all()).map((c) => c.workbench)), new Set([healthy.url]));
  assert.equal(reporter.notices.filter((n) => /stopped answering/.test(n)).length, 1);
  assert.match(reporter.notices.join('\n'), /runs again on another workbench/);
});

test('an output that cannot be written fails the step that made it, and the case', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  // A file where the output folder should be: the folder cannot be made.
  await writeFile(join(dir, 'blocker'), 'not a folder');
  const plan = await playbook(
    'unwritable',
    `${LOAD}  - reinit\n  - screenshot: { of: stdmulti/axial, save: "blocker/axial.png" }\n  - screenshot: { of: stdmulti/coronal, save: "\${out}/coronal.png" }\n`,
  );
  const result = await run(wb, [plan]);
  const [, , blocked, fine] = await steps(result);
  assert.equal((await result.cases.all())[0]?.status, 'error');
  assert.equal(blocked?.status, 'error');
  assert.equal(blocked?.error?.code, 'OUTPUT_NOT_WRITTEN');
  assert.match(blocked?.error?.message ?? '', /^could not write .*blocker\/axial\.png: .*\((ENOTDIR|EEXIST)\)$/);
  assert.equal(fine?.status, 'passed');
  await stat(join(dir, 'out-unwritable', 'coronal.png'));
});

test('a resume journal that cannot be written costs a rerun next time, never the results of the run', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const outputDir = join(dir, 'no-manifest');
  // A folder where the journal should go: every append to it fails.
  await mkdir(join(outputDir, 'wbplay-journal.jsonl'), { recursive: true });
  await writeFile(join(dir, 'two.csv'), 'name\nfirst\nsecond\n');
  const plan = await playbook(
    'nomanifest',
    `${LOAD}  - reinit\n  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}.png" }\n`,
    {},
    'foreach:\n  csv: two.csv\n',
  );
  const reporter = recorder();
  const result = await run(wb, [plan], { reporter, outputDir });
  assert.deepEqual(
    (await result.cases.all()).map((c) => c.status),
    ['passed', 'passed'],
  );
  assert.equal(reporter.notices.filter((n) => /passed but could not be recorded/.test(n)).length, 2);
  // A lost journal line is a file of the run's record that is missing: the CLI exits 3 for it.
  assert.equal(result.unwritten?.filter((u) => u.path === join(outputDir, 'wbplay-journal.jsonl')).length, 2);
});

test('each case is spooled as it ends; the result reads the cases back in case order, after the spool left the folder', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  await writeFile(join(dir, 'spool.csv'), 'name,file\na,ct.nrrd\nb,broken.nrrd\nc,ct.nrrd\n');
  await writeFile(join(dir, 'data', 'broken.nrrd'), 'NRRD0004\nthis is no header\n');
  const plan = await playbook(
    'spool',
    '  - load: { file: "${data}/${study.file}", as: ct }\n',
    {},
    'foreach:\n  csv: spool.csv\n',
  );
  const out = join(dir, 'spool-report');
  const spooled: number[] = [];
  const result = await run(wb, [plan], {
    outputDir: out,
    reporter: {
      // While the run lasts, the spool holds a line for every case that has ended.
      onCaseEnd: () => void readFile(join(out, 'wbplay-cases.jsonl'), 'utf8').then((t) => spooled.push(t.length)),
    },
  });
  assert.deepEqual(
    result.cases.summaries.map((c) => [c.id, c.status]),
    [
      ['a', 'passed'],
      ['b', 'error'],
      ['c', 'passed'],
    ],
  );
  await assert.rejects(stat(join(out, 'wbplay-cases.jsonl')), { code: 'ENOENT' });
  assert.ok(spooled.length > 0 && spooled.every((n) => n > 0), 'the spool was written during the run');
  // Another run in the same folder spools its own cases; this result still reads its own.
  const again = await run(wb, [await playbook('spool', '  - reinit\n', {}, 'foreach:\n  csv: spool.csv\n')], {
    outputDir: out,
  });
  assert.equal(again.status, 'passed');
  const cases = await result.cases.all();
  assert.deepEqual(
    cases.map((c) => [c.id, c.steps[0]?.kind, c.steps[0]?.status]),
    [
      ['a', 'load', 'passed'],
      ['b', 'load', 'error'],
      ['c', 'load', 'passed'],
    ],
  );
  assert.ok(cases[1]?.steps[0]?.error?.code, 'the erred case keeps its error');
});
