// What a run does when the workbench misbehaves outside a step: the clean-up between studies
// under the retry policy, a scene that cannot be cleared, and workbenches that cannot be reached.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WorkbenchUnreachableError } from '../../src/run/preflight.js';
import { loadPlaybook } from '../../src/compile/index.js';
import { runPlans } from '../../src/run/runner.js';
import { redact } from '../../src/run/workbenches.js';
import { cohortPlan, FAST_RETRY, makeCohort, wbplay, type Cohort } from '../helpers/cohort.js';
import { deadPort, nodeNames } from '../helpers/net.js';
import { startTestWorkbench } from '../helpers/workbench.js';

let dir = '';
let cohort: Cohort;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-reliability-'));
  cohort = await makeCohort(dir, 3);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the clean-up between studies is retried; a DELETE whose answer was lost and then answers 404 has succeeded', async (t) => {
  // The first removal is applied but its answer lost (its retry answers 404); the third answers 503 once.
  const wb = await startTestWorkbench({
    faults: 'drop-after@DELETE /api/v1/datastorage/nodes/*#1;503@DELETE /api/v1/datastorage/nodes/*#3',
  });
  t.after(() => wb.stop());
  const notices: string[] = [];
  const out = join(dir, 'retried-clean-up');
  const result = await runPlans({
    plans: [cohortPlan(cohort, out)],
    workbenches: { urls: [wb.url] },
    reporter: { onNotice: (m) => notices.push(m) },
    outputDir: out,
    retry: FAST_RETRY,
  });
  assert.deepEqual(
    (await result.cases.all()).map((c) => c.status),
    ['passed', 'passed', 'passed'],
    JSON.stringify((await result.cases.all()).map((c) => c.steps.find((s) => s.error)?.error)),
  );
  assert.deepEqual(notices, []);
  // Only the last study's two nodes are left: nothing of the others, nothing twice.
  assert.equal((await nodeNames(wb.url)).length, 2);
});

test('the clean-up removes a segmentation with the image it was loaded under, in one DELETE; a node moved out from under it is removed on its own', async (t) => {
  const text = await readFile(cohort.playbook, 'utf8');
  const moved = join(dir, 'moved.yaml');
  await writeFile(moved, text.replace(/^(.*as: tumour.*\n)/m, '$1  - set: { node: tumour, parent: null }\n'));
  for (const [name, playbook, perStudy] of [
    ['under', cohort.playbook, 1],
    ['moved', moved, 2],
  ] as const) {
    const wb = await startTestWorkbench();
    t.after(() => wb.stop());
    const out = join(dir, `clean-up-${name}`);
    const plan = loadPlaybook(playbook, { vars: { out }, env: {}, displayRoot: cohort.dir });
    const result = await runPlans({
      plans: [plan],
      workbenches: { urls: [wb.url] },
      reporter: {},
      outputDir: out,
      retry: FAST_RETRY,
    });
    assert.deepEqual(
      (await result.cases.all()).map((c) => c.status),
      ['passed', 'passed', 'passed'],
      name,
    );
    const deletes = wb.events.entries.filter((e) => e.method === 'DELETE');
    // Three studies: the first two are cleared away as the next one starts.
    assert.equal(deletes.length, 2 * perStudy, `${name}: ${JSON.stringify(deletes.map((e) => e.path))}`);
    assert.equal((await nodeNames(wb.url)).length, 2, `${name}: only the last study's two nodes are left`);
  }
});

test('a scene that cannot be cleared is blamed on the study that left it; that workbench leaves the pool and the next study runs on another', async (t) => {
  const stuck = await startTestWorkbench({ faults: '503@DELETE /api/v1/datastorage/nodes/**' });
  // The healthy workbench loads slowly, so the stuck one is free again while a study is still
  // queued and has to clear its scene for it (else the healthy one could take every study).
  const healthy = await startTestWorkbench({ faults: 'latency=300@POST /api/v1/datastorage/nodes' });
  t.after(() => Promise.all([stuck.stop(), healthy.stop()]));
  const notices: string[] = [];
  const out = join(dir, 'stuck-clean-up');
  const result = await runPlans({
    plans: [cohortPlan(cohort, out)],
    workbenches: { urls: [stuck.url, healthy.url] },
    reporter: { onNotice: (m) => notices.push(m) },
    outputDir: out,
    retry: FAST_RETRY,
  });
  assert.deepEqual(
    (await result.cases.all()).map((c) => c.status),
    ['passed', 'passed', 'passed'],
  );
  const onStuck = (await result.cases.all()).filter((c) => c.workbench === redact(stuck.url)).map((c) => c.name);
  assert.equal(onStuck.length, 1, 'one study ran on the workbench that cannot be cleared, then it left the pool');
  assert.equal(notices.length, 1, notices.join('\n'));
  assert.match(
    notices[0]!,
    new RegExp(
      `^workbench ${redact(stuck.url).replace(/[.]/g, '\\.')} leaves the pool: its scene could not be cleared of ${onStuck[0]!.replace(/[.[\]()]/g, '\\$&')} \\(SERVICE_UNAVAILABLE: DELETE .*HTTP 503.*\\); it may hold stale nodes; .* runs again on another workbench$`,
    ),
  );
  assert.doesNotMatch(notices[0]!, /stopped answering/);
});

test('a workbench that cannot be reached ends the run before any case, with one message that names the URL', async () => {
  const url = `http://127.0.0.1:${await deadPort()}`;
  const started: string[] = [];
  await assert.rejects(
    runPlans({
      plans: [cohortPlan(cohort, join(dir, 'dead'))],
      workbenches: { urls: [url] },
      reporter: { onCaseStart: (c) => started.push(c.id) },
      outputDir: join(dir, 'dead'),
      retry: FAST_RETRY,
    }),
    (err: unknown) =>
      err instanceof WorkbenchUnreachableError &&
      err.message === `nothing answers at ${url}: the connection was refused` &&
      /REST server/.test(err.hint),
  );
  assert.deepEqual(started, []);
});

test('a host that does not resolve is named once; the CLI exits 1 with one message and no retry storm', async () => {
  const result = await wbplay(
    [
      'run',
      cohort.playbook,
      '--url',
      'http://no-such-host.invalid:8080',
      '--out',
      join(dir, 'dns'),
      '--reporter',
      'line',
    ],
    cohort.dir,
  );
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /the host of http:\/\/no-such-host\.invalid:8080 is not known \(DNS lookup failed\)/);
  assert.equal(result.stderr.match(/no-such-host/g)?.length, 1, result.stderr);
  assert.doesNotMatch(result.stdout + result.stderr, /stopped answering|retry/i);
});

test('a token the workbench refuses ends the run before any case, names where to put the token, and never shows it', async (t) => {
  const wb = await startTestWorkbench({ token: 'right-token-31415' });
  t.after(() => wb.stop());
  const result = await wbplay(
    [
      'run',
      cohort.playbook,
      '--url',
      wb.url,
      '--token-env',
      'MY_TOKEN',
      '--out',
      join(dir, 'token'),
      '--reporter',
      'line',
    ],
    cohort.dir,
    { MY_TOKEN: 'wrong-token-27182' },
  );
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /the API token was not accepted \(HTTP 401\)/);
  assert.doesNotMatch(result.stdout + result.stderr, /wrong-token-27182|right-token-31415/);
  assert.deepEqual(await nodeNames(wb.url, 'right-token-31415'), []);
});

test("a stalled exchange is abandoned at the request timeout and retried within the step's time", async (t) => {
  const wb = await startTestWorkbench({
    faults: 'stall@GET /api/v1/rendering/editors/stdmulti/windows/axial/screenshot#1',
  });
  t.after(() => wb.stop());
  const out = join(dir, 'request-timeout');
  const plan = cohortPlan(cohort, out);
  const result = await runPlans({
    plans: [{ ...plan, cases: plan.cases.slice(0, 1) }],
    workbenches: { urls: [wb.url] },
    reporter: {},
    outputDir: out,
    retry: FAST_RETRY,
    timeoutMs: 10_000,
    requestTimeoutMs: 300,
  });
  assert.equal(result.status, 'passed');
  const shot = (await result.cases.all())[0]!.steps.find((s) => s.kind === 'screenshot')!;
  assert.deepEqual(
    shot.attempts.map((a) => a.error?.code ?? 'ok'),
    ['TIMEOUT', 'ok'],
  );
});

test("--trace writes each case's exchanges with step, attempt and how a failure was classified; the report links it; no token anywhere", async (t) => {
  const token = 'trace-token-16180';
  const wb = await startTestWorkbench({ token, faults: '503@POST /api/v1/datastorage/nodes#1' });
  t.after(() => wb.stop());
  const playbook = join(cohort.dir, 'traced.yaml');
  await writeFile(
    playbook,
    [
      'version: 1',
      'name: Traced',
      'foreach:',
      '  csv: data/studies.csv',
      'steps:',
      '  - load: { file: "${study.path}/ct.nrrd", as: ct }',
      '  - set: { node: ct, opacity: 0.5 }',
      '  - expect_state: { of: node:ct, equals: { opacity: 0.9 } }',
      '',
    ].join('\n'),
  );
  const out = join(dir, 'traced');
  const result = await wbplay(
    [
      'run',
      playbook,
      '--url',
      wb.url,
      '--token-env',
      'WB_TOKEN',
      '--trace',
      '--grep',
      cohort.studies[0]!.name,
      '--out',
      out,
      '--reporter',
      'line,json,html',
    ],
    cohort.dir,
    { WB_TOKEN: token },
  );
  assert.equal(result.code, 1, result.stderr);
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { cases: Array<{ trace?: string }> };
  const tracePath = report.cases[0]!.trace!;
  const lines = (await readFile(join(out, tracePath), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const creates = lines.filter((l) => l.method === 'POST' && l.path === '/api/v1/datastorage/nodes');
  assert.deepEqual(
    creates.map((l) => [l.step, l.attempt, l.status, l.outcome, l.retried]),
    [
      [1, 1, 503, 'SERVICE_UNAVAILABLE', true],
      [1, 2, 201, 'ok', undefined],
    ],
  );
  for (const line of lines) assert.equal(typeof line.duration_ms, 'number');
  const html = await readFile(join(out, 'report.html'), 'utf8');
  assert.match(html, /<a href="[^"]*trace\.jsonl">HTTP trace of this case<\/a>/);
  for (const file of [tracePath, 'report.json', 'report.html'])
    assert.doesNotMatch(await readFile(join(out, file), 'utf8'), new RegExp(token));
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(token));
});
