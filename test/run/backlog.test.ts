// The bound on work that finishes behind a run: steps whose files are still being written, and
// a workbench's cases whose files and journal lines are. A slow disk holds the run back instead
// of letting captures pile up in memory.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CaseInfo, ErrorInfo } from '../../src/result/result.js';
import { Backlog } from '../../src/run/backlog.js';
import { runCase, STEPS_WRITING, type RunnableStep } from '../../src/run/case-runner.js';
import { CASES_FINISHING } from '../../src/run/dispatch.js';
import { runPlans } from '../../src/run/runner.js';
import type { StepRunContext } from '../../src/steps/run-context.js';
import { cohortPlan, FAST_RETRY, makeCohort } from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

/** A promise and the function that settles it. */
function held<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (err: Error) => void } {
  let resolve: (value: T) => void = () => undefined;
  let reject: (err: Error) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('a backlog has room below its limit, and makes room when a piece resolves or rejects', async () => {
  const backlog = new Backlog(2);
  assert.equal(backlog.full, false);
  await backlog.room(); // room at once
  const a = held<void>();
  const b = held<void>();
  backlog.add(a.promise);
  backlog.add(b.promise);
  assert.equal(backlog.size, 2);
  assert.equal(backlog.full, true);
  let roomy = false;
  const waiting = backlog.room().then(() => (roomy = true));
  await tick();
  assert.equal(roomy, false, 'no room while both are pending');
  b.reject(new Error('its owner reports this')); // a failure frees its place too
  await waiting;
  assert.equal(backlog.size, 1);
  a.resolve();
  await tick();
  assert.equal(backlog.size, 0);
  assert.throws(() => new Backlog(0), RangeError);
});

test(`at most ${STEPS_WRITING} steps of a case write behind it: the next step waits for the disk`, async () => {
  const writes = Array.from({ length: 6 }, () => held<ErrorInfo | undefined>());
  const started: number[] = [];
  const steps: RunnableStep[] = writes.map((_, i) => ({
    index: i + 1,
    kind: 'screenshot',
    description: `screenshot ${i + 1}`,
    span: { file: 'p.yaml', line: i + 5, col: 5 },
    args: {},
    run: async () => {
      started.push(i + 1);
      return { status: 'passed' };
    },
  }));
  const info: CaseInfo = { id: 'main', name: 'main', playbook: 'p.yaml', steps: [] };
  const running = runCase(info, steps, {
    policy: { retries: 0, minDelayMs: 1, maxDelayMs: 1, factor: 1 },
    classify: (err) => ({ retryable: false, info: { code: 'ERROR', message: String(err) } }),
    context: (_s, attempt, signal) => ({ attempt, signal }) as unknown as StepRunContext,
    written: (index) => writes[index - 1]!.promise,
    reporter: {},
    timeoutMs: 1000,
    signal: new AbortController().signal,
  });
  for (let i = 0; i < 20; i++) await tick();
  assert.deepEqual(started, [1, 2, 3, 4], 'the fifth step waits while four steps are writing');
  writes[2]!.resolve(undefined); // any one landing makes room
  for (let i = 0; i < 20; i++) await tick();
  assert.deepEqual(started, [1, 2, 3, 4, 5]);
  for (const w of writes) w.resolve(undefined);
  const { result, settled } = await running;
  await settled;
  assert.deepEqual(started, [1, 2, 3, 4, 5, 6]);
  assert.equal(result.status, 'passed');
});

test(`a workbench starts a case while at most ${CASES_FINISHING} of its cases still finish behind it`, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-backlog-'));
  const workbench = await startTestWorkbench();
  try {
    const cohort = await makeCohort(dir, CASES_FINISHING + 2);
    // A reporter that takes its time with each case's first step end: the case cannot finish
    // (its `settled` waits for its events) until the test lets it.
    const gates = new Map<string, ReturnType<typeof held<void>>>();
    const started: string[] = [];
    const pending = runPlans({
      plans: [cohortPlan(cohort, join(dir, 'out'))],
      workbenches: { urls: [workbench.url] },
      outputDir: join(dir, 'out'),
      retry: FAST_RETRY,
      reporter: {
        onCaseStart: (c) => void started.push(c.id),
        onStepEnd: ((c: CaseInfo, r: { index: number }) => {
          if (r.index !== 1) return;
          const gate = held<void>();
          gates.set(c.id, gate);
          return gate.promise;
        }) as never,
      },
    });
    const cases = cohortPlan(cohort, join(dir, 'out')).cases.map((c) => c.id);
    while (gates.size < CASES_FINISHING) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(started, cases.slice(0, CASES_FINISHING), 'the next case waits for the disk');
    gates.get(cases[0]!)!.resolve();
    while (started.length < CASES_FINISHING + 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(started[CASES_FINISHING], cases[CASES_FINISHING]);
    // Let every case finish as it comes.
    const release = setInterval(() => {
      for (const gate of gates.values()) gate.resolve();
    }, 10);
    const result = await pending;
    clearInterval(release);
    assert.equal(result.status, 'passed');
    assert.equal(result.summary.passed, cases.length);
  } finally {
    await workbench.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
