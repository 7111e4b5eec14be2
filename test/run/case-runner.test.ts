import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase, type RunnableStep } from '../../src/run/case-runner.js';
import type { Classified } from '../../src/run/retry.js';
import type { CaseInfo, StepResult } from '../../src/result/result.js';
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
): Promise<{ result: Awaited<ReturnType<typeof runCase>>; ended: StepResult[] }> {
  const ended: StepResult[] = [];
  const result = await runCase(info, steps, {
    policy: { retries: 2, minDelayMs: 1, maxDelayMs: 2, factor: 2 },
    classify,
    context: (_s, attempt, signal) => ({ attempt, signal }) as unknown as StepRunContext,
    reporter: { onStepEnd: (_c, r) => ended.push(r) },
    timeoutMs,
    signal: new AbortController().signal,
  });
  return { result, ended };
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
