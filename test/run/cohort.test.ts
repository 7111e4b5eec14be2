// Cohort runs end to end against reference workbenches: every study starts from a clean scene,
// one broken study fails alone, several workers share the cohort, a dead workbench is survived.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openReport } from '../../src/report/read-report.js';
import { connect } from '../../src/client/index.js';
import type { Plan } from '../../src/compile/index.js';
import type { CaseInfo, RunResult } from '../../src/result/result.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { redact } from '../../src/run/workbenches.js';
import {
  cohortPlan,
  differingPixels,
  FAST_RETRY,
  makeCohort,
  onlyStudy,
  pixels,
  SHOTS,
  wbplay,
  type Cohort,
} from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

type Pixels = Awaited<ReturnType<typeof pixels>>;

let dir = '';
let cohort: Cohort;
/** Each study's screenshots when it ran alone on a fresh workbench: study id → shot → pixels. */
const alone = new Map<string, Map<string, Pixels>>();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-cohort-'));
  cohort = await makeCohort(dir, 3);
  const plan = cohortPlan(cohort, join(dir, 'alone'));
  for (const c of plan.cases) {
    // An embedded workbench of count 1 is started for this run only: a fresh scene.
    const result = await runPlans({
      plans: [onlyStudy(plan, c.id)],
      workbenches: embeddedWorkbenches(1),
      reporter: {},
      outputDir: join(dir, 'alone', c.id),
      retry: FAST_RETRY,
    });
    assert.equal(result.status, 'passed', `${c.id} alone`);
    alone.set(c.id, await shotsOf(join(dir, 'alone'), c.id));
  }
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function shotsOf(out: string, study: string): Promise<Map<string, Pixels>> {
  const shots = new Map<string, Pixels>();
  for (const shot of SHOTS) shots.set(shot, await pixels(join(out, study, shot)));
  return shots;
}

/** Every screenshot of `study` under `out` has the pixels the study gave alone. */
async function assertAsAlone(out: string, study: string, context: string): Promise<void> {
  const expected = alone.get(study);
  assert.ok(expected, `reference of ${study}`);
  const actual = await shotsOf(out, study);
  for (const shot of SHOTS) {
    assert.equal(
      differingPixels(actual.get(shot)!, expected.get(shot)!),
      0,
      `${context}: ${study}/${shot} has the pixels of ${study} run alone`,
    );
  }
}

const ids = (r: RunResult): string[] => r.cases.summaries.map((c) => c.id);
const statuses = (r: RunResult): Array<[string, string]> => r.cases.summaries.map((c) => [c.id, c.status]);

/** The node UIDs the load steps of a case created. */
async function loadedUids(r: RunResult, id: string): Promise<string[]> {
  const c = (await r.cases.all()).find((x) => x.id === id);
  assert.ok(c, `case ${id}`);
  return c.steps
    .filter((s) => s.kind === 'load')
    .map((s) => (s.resolvedArgs as { uid?: string } | undefined)?.uid ?? '(none)');
}

test('the demo studies look clearly different, so a leftover of one would show in the next', () => {
  const studies = [...alone.keys()];
  assert.equal(studies.length, 3);
  for (const [i, a] of studies.entries()) {
    for (const b of studies.slice(i + 1)) {
      for (const shot of SHOTS) {
        const n = differingPixels(alone.get(a)!.get(shot)!, alone.get(b)!.get(shot)!);
        assert.ok(n > 100, `${a} and ${b} differ in ${shot} (${n} pixels)`);
      }
    }
  }
});

test('the pixel comparison sees a study drawn over the nodes of another', async (t) => {
  // Another study's nodes, made by hand and kept: what a cohort without a clean scene would draw.
  const wb = await startTestWorkbench();
  const client = connect({ url: wb.url });
  t.after(async () => {
    await client.close();
    await wb.stop();
  });
  const plan = cohortPlan(cohort, join(dir, 'dirty'));
  const [first, second] = cohort.studies;
  const ct = await client.nodes.create({ file: join(cohort.data, first!.name, 'ct.nrrd') });
  await client.nodes.create({ file: join(cohort.data, first!.name, 'tumour-label.nrrd'), parent: ct.node.uid });
  const r = await runPlans({
    plans: [onlyStudy(plan, second!.name)],
    workbenches: { urls: [wb.url] },
    reporter: {},
    outputDir: join(dir, 'dirty', second!.name),
    retry: FAST_RETRY,
    foreignNodes: 'keep',
  });
  assert.equal(r.status, 'passed');
  const dirty = await shotsOf(join(dir, 'dirty'), second!.name);
  const changed = SHOTS.filter((shot) => differingPixels(dirty.get(shot)!, alone.get(second!.name)!.get(shot)!) > 0);
  assert.ok(changed.length > 0, 'leftover nodes change at least one screenshot');
});

test("isolation: on one workbench each study has the pixels it has alone, and only the last study's nodes remain", async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const out = join(dir, 'shared');
  const result = await runPlans({
    plans: [cohortPlan(cohort, out)],
    workbenches: { urls: [wb.url] },
    reporter: {},
    outputDir: out,
    retry: FAST_RETRY,
  });
  assert.deepEqual(
    statuses(result),
    cohort.studies.map((s) => [s.name, 'passed']),
  );
  for (const c of await result.cases.all()) assert.equal(c.workbench, redact(wb.url));
  for (const study of ids(result)) await assertAsAlone(out, study, 'one workbench');

  const client = connect({ url: wb.url });
  t.after(() => client.close());
  const left = (await client.nodes.list({ hierarchy: 'all' })).map((n) => n.uid).sort();
  const last = ids(result).at(-1)!;
  const expected = (await loadedUids(result, last)).sort();
  assert.equal(expected.length, 2, 'the last study loaded a CT and a label');
  assert.deepEqual(left, expected, `the workbench holds the nodes of ${last} only`);
});

test('failure isolation: a corrupt data file errs that study only; the others pass and look as alone', async () => {
  const broken = join(dir, 'broken');
  await cp(cohort.data, join(broken, 'data'), { recursive: true });
  await cp(cohort.playbook, join(broken, 'cohort.yaml'));
  const bad = cohort.studies[1]!.name;
  // The label, not the CT: the CT node of the broken study is created, so the next study on
  // the same workbench must also be cleared of a case that erred.
  await writeFile(join(broken, 'data', bad, 'tumour-label.nrrd'), 'NRRD0004\nthis is not an image at all\n'.repeat(40));
  const plan = cohortPlan(
    { ...cohort, dir: broken, data: join(broken, 'data'), playbook: join(broken, 'cohort.yaml') },
    join(broken, 'out'),
  );

  const result = await runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: join(broken, 'out'),
    retry: FAST_RETRY,
  });
  assert.deepEqual(
    statuses(result),
    cohort.studies.map((s) => [s.name, s.name === bad ? 'error' : 'passed']),
  );
  assert.deepEqual(result.summary, { total: 3, passed: 2, failed: 0, error: 1, skipped: 0 });
  assert.equal(result.status, 'error');
  const failed = (await result.cases.all()).find((c) => c.id === bad)!;
  assert.deepEqual(
    failed.steps.map((s) => s.status),
    ['passed', 'error', ...failed.steps.slice(2).map(() => 'skipped')],
    'the label load errs, the rest of the study is skipped',
  );
  assert.ok(failed.steps[1]!.error?.code, 'the error has a code');
  for (const c of await result.cases.all())
    if (c.id !== bad) await assertAsAlone(join(broken, 'out'), c.id, 'after a broken study');

  // The same through the CLI: exit code 1, the summary in report.json, the failure named.
  const cli = await wbplay(['run', 'cohort.yaml', '--out', 'cli-out', '--reporter', 'line', '--retries', '1'], broken);
  assert.equal(cli.code, 1, cli.stderr);
  const report = await openReport(join(broken, 'cli-out'));
  assert.deepEqual(report.summary, { total: 3, passed: 2, failed: 0, error: 1, skipped: 0 });
  assert.deepEqual(statuses(report), statuses(result));
  assert.match(cli.stdout, new RegExp(bad));
});

test('workers: two embedded workbenches share the cohort, both are used, every output is as alone', async () => {
  const out = join(dir, 'workers');
  const plan: Plan = cohortPlan(cohort, out);
  const started: Array<[string, number]> = [];
  const result = await runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(2),
    reporter: { onCaseStart: (c: CaseInfo, worker: number) => started.push([c.id, worker]) },
    outputDir: out,
    retry: FAST_RETRY,
  });
  assert.deepEqual(
    statuses(result),
    cohort.studies.map((s) => [s.name, 'passed']),
  );
  assert.deepEqual(
    new Set((await result.cases.all()).map((c) => c.workbench)),
    new Set(['embedded #1', 'embedded #2']),
  );
  assert.deepEqual(started.map(([id]) => id).sort(), ids(result), 'each study started once');
  for (const c of plan.cases) {
    for (const output of c.outputs) await pixels(output);
    await assertAsAlone(out, c.id, 'two workers');
  }
});

test('a workbench that never answered leaves the pool before any case; every study runs on the other and passes', async (t) => {
  const gone = await startTestWorkbench();
  const deadUrl = gone.url;
  await gone.stop();
  const live = await startTestWorkbench();
  t.after(() => live.stop());
  const out = join(dir, 'dead');
  const notices: string[] = [];
  const started: Array<[string, number]> = [];
  const result = await runPlans({
    plans: [cohortPlan(cohort, out)],
    // The dead one first: it takes the first study.
    workbenches: { urls: [deadUrl, live.url] },
    reporter: {
      onNotice: (m: string) => notices.push(m),
      onCaseStart: (c: CaseInfo, worker: number) => started.push([c.id, worker]),
    },
    outputDir: out,
    retry: FAST_RETRY,
  });
  assert.deepEqual(
    statuses(result),
    cohort.studies.map((s) => [s.name, 'passed']),
  );
  for (const c of await result.cases.all())
    assert.equal(c.workbench, redact(live.url), `${c.id} ran on the live workbench`);
  const first = cohort.studies[0]!.name;
  assert.deepEqual(
    started.filter(([id]) => id === first).map(([, w]) => w),
    [1],
    'no study started on the dead workbench',
  );
  assert.equal(notices.length, 1, notices.join('\n'));
  // It never answered, so it is not said to have stopped answering.
  assert.match(
    notices[0]!,
    new RegExp(
      `^nothing answers at ${redact(deadUrl).replace(/[.]/g, '\\.')}: the connection was refused; that workbench leaves the pool before any case ran$`,
    ),
  );
  for (const study of ids(result)) await assertAsAlone(out, study, 'after a dead workbench');
});

test('a workbench that dies mid-cohort leaves the pool; the study it could not start runs on the other', async (t) => {
  const cohort5 = await makeCohort(join(dir, 'dies'), 5);
  const dying = await startTestWorkbench();
  const live = await startTestWorkbench();
  t.after(() => Promise.all([dying.stop(), live.stop()]));
  const out = join(dir, 'dies', 'out');
  const notices: string[] = [];
  const dyingLabel = redact(dying.url);
  const result = await runPlans({
    plans: [cohortPlan(cohort5, out)],
    workbenches: { urls: [dying.url, live.url] },
    reporter: {
      onNotice: (m: string) => notices.push(m),
      // Its first study done, the workbench goes away (stop closes the port at once).
      onCaseEnd: (c) => {
        if (c.workbench === dyingLabel) void dying.stop();
      },
    },
    outputDir: out,
    retry: FAST_RETRY,
  });
  assert.deepEqual(
    statuses(result),
    cohort5.studies.map((s) => [s.name, 'passed']),
  );
  assert.equal(
    (await result.cases.all()).filter((c) => c.workbench === dyingLabel).length,
    1,
    'one study ran on the workbench before it died',
  );
  assert.equal(notices.length, 1, notices.join('\n'));
  assert.match(notices[0]!, /stopped answering during .*runs again on another workbench/);
  // The first three studies are the ones of the reference set; each looks as it does alone.
  for (const c of (await result.cases.all()).slice(0, 3)) await assertAsAlone(out, c.id, 'after a workbench died');
});
