import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase, type RunnableStep } from '../../src/run/case-runner.js';
import type { Classified } from '../../src/run/retry.js';
import type { CaseInfo, CaseResult, ErrorInfo, StepResult } from '../../src/result/result.js';
import type { StepRunContext } from '../../src/steps/run-context.js';

class Transient extends Error {}

const classify = (err: unknown): Classified => ({
  retryable: err instanceof Transient,
  info: {
    code: err instanceof Transient ? 'HTTP_503' : ((err as { code?: string }).code ?? 'ERROR'),
    message: (err as Error).message,
  },
});

function step(index: number, run: RunnableStep['run']): RunnableStep {
  return {
    index,
    kind: 'set',
    description: `step ${index}`,
    span: { file: 'p.yaml', line: index + 5, col: 5 },
    args: {},
    run,
  };
}

const info: CaseInfo = { id: 'main', name: 'main', playbook: 'p.yaml', steps: [] };

async function run(
  steps: RunnableStep[],
  timeoutMs = 1000,
  written?: (step: number) => Promise<ErrorInfo | undefined> | undefined,
  events: string[] = [],
): Promise<{ result: CaseResult; ended: StepResult[]; events: string[] }> {
  const ended: StepResult[] = [];
  const { result, settled } = await runCase(info, steps, {
    policy: { retries: 2, minDelayMs: 1, maxDelayMs: 2, factor: 2 },
    classify,
    context: (_s, attempt, signal) => ({ attempt, signal }) as unknown as StepRunContext,
    ...(written ? { written } : {}),
    reporter: {
      onStepStart: (_c, s) => events.push(`start ${s.index}`),
      onStepEnd: (_c, r) => {
        ended.push(r);
        events.push(`end ${r.index} ${r.status}`);
      },
    },
    timeoutMs,
    signal: new AbortController().signal,
  });
  await settled;
  return { result, ended, events };
}

test('transient errors are retried and every attempt is recorded', async () => {
  let calls = 0;
  const { result } = await run([
    step(1, async (ctx) => {
      calls++;
      if (ctx.attempt < 3) throw new Transient('busy');
      return { status: 'passed' };
    }),
  ]);
  assert.equal(calls, 3);
  assert.equal(result.status, 'passed');
  assert.deepEqual(
    result.steps[0]!.attempts.map((a) => a.error?.code ?? 'ok'),
    ['HTTP_503', 'HTTP_503', 'ok'],
  );
});

test('a failed assertion is never retried; the steps after it are skipped with the reason', async () => {
  let calls = 0;
  const { result, ended } = await run([
    step(1, async () => {
      calls++;
      return { status: 'failed', failure: { code: 'IMAGE_DIFFERS', message: 'differs' } };
    }),
    step(2, async () => ({ status: 'passed' })),
  ]);
  assert.equal(calls, 1);
  assert.equal(result.status, 'failed');
  assert.deepEqual(
    ended.map((s) => s.status),
    ['failed', 'skipped'],
  );
  assert.match(result.steps[1]!.skippedReason ?? '', /step 1 \(set, line 6\) failed/);
});

test('a permanent error ends the case as an error; a step past its timeout is aborted', async () => {
  const permanent = await run([
    step(1, async () => {
      throw Object.assign(new Error('no such node'), { code: 'NODE_NOT_FOUND' });
    }),
  ]);
  assert.equal(permanent.result.status, 'error');
  assert.equal(permanent.result.steps[0]!.error?.code, 'NODE_NOT_FOUND');
  assert.equal(permanent.result.steps[0]!.attempts.length, 1);

  let aborted = false;
  const slow = await run(
    [
      step(
        1,
        (ctx) =>
          new Promise((resolve) =>
            ctx.signal.addEventListener('abort', () => ((aborted = true), resolve({ status: 'passed' }))),
          ),
      ),
    ],
    30,
  );
  assert.equal(slow.result.status, 'error');
  assert.equal(slow.result.steps[0]!.error?.code, 'STEP_TIMEOUT');
  assert.ok(aborted, 'the step saw its signal abort');
});

test("a step whose file is still being written is reported once it is on disk, and the next step's events wait behind it", async () => {
  let land: (failure: ErrorInfo | undefined) => void = () => undefined;
  const landed = new Promise<ErrorInfo | undefined>((resolve) => (land = resolve));
  let secondRan = false;
  const pending = run(
    [
      step(1, async () => ({ status: 'passed' })),
      step(2, async () => {
        secondRan = true;
        return { status: 'passed' };
      }),
    ],
    1000,
    (index) => (index === 1 ? landed : Promise.resolve(undefined)),
  );
  // The workbench is not kept waiting: step 2 runs while step 1's file is still on its way.
  while (!secondRan) await new Promise((r) => setImmediate(r));
  land(undefined);
  const { result, events } = await pending;
  assert.deepEqual(events, ['start 1', 'end 1 passed', 'start 2', 'end 2 passed']);
  assert.equal(result.status, 'passed');
});

test('with no file to wait for, events are told as the steps go; after a written file, in order again', async () => {
  const events: string[] = [];
  const body = (index: number) => async () => {
    events.push(`body ${index}`);
    return { status: 'passed' as const };
  };
  let land: () => void = () => undefined;
  const landed = new Promise<undefined>((resolve) => (land = () => resolve(undefined)));
  const { result } = await run(
    [
      step(1, body(1)),
      step(2, body(2)),
      step(3, async () => {
        events.push('body 3');
        land();
        return { status: 'passed' };
      }),
      step(4, body(4)),
    ],
    1000,
    // Only step 2 wrote a file; it lands while step 3 runs.
    (index) => (index === 2 ? landed : undefined),
    events,
  );
  assert.deepEqual(events, [
    'start 1',
    'body 1',
    'end 1 passed',
    'start 2',
    'body 2',
    // Step 3 starts on the workbench before step 2's file is on disk; its events wait behind it.
    'body 3',
    'end 2 passed',
    'start 3',
    'end 3 passed',
    // Nothing left to wait for: told at once again.
    'start 4',
    'body 4',
    'end 4 passed',
  ]);
  assert.equal(result.status, 'passed');
});

test('a step whose file could not be written errs with the reason; steps not yet started are skipped; the case errs', async () => {
  const failure: ErrorInfo = {
    code: 'OUTPUT_NOT_WRITTEN',
    message: 'could not write /out/a.png: no space left on device (ENOSPC)',
  };
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const { result, ended } = await run(
    [
      step(1, async () => ({ status: 'passed' })),
      // Step 2 waits until step 1's write failure is known, as a slow workbench call would.
      step(2, async () => {
        await gate;
        return { status: 'passed' };
      }),
      step(3, async () => ({ status: 'passed' })),
    ],
    1000,
    async (index) => {
      if (index !== 1) return undefined;
      setImmediate(release);
      return failure;
    },
  );
  assert.equal(result.status, 'error');
  assert.deepEqual(
    ended.map((s) => s.status),
    ['error', 'passed', 'skipped'],
  );
  assert.deepEqual(ended[0]?.error, failure);
  assert.equal(ended[2]?.skippedReason, 'step 1 (set, line 6) could not write its output');
});
