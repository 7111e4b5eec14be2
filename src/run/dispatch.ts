import { runCaseJob, finished, type CaseOutcome } from './case-job.js';
import { classify, mayBeWorkbenchLoss } from './classify.js';
import { answers } from './clean-up.js';
import { runPool } from './pool.js';
import type { CaseResult } from '../result/result.js';
import type { RunContext } from './run-context.js';
import { notRun } from './run-item.js';
import type { WorkbenchSlot } from './workbenches.js';

/**
 * Runs the cases of a run on its pool of workbenches and returns their results in case order.
 * A case's end is reported once its writes are done. Whatever goes wrong with one case stays
 * with that case; a workbench that stops answering leaves the pool; fail-fast and Ctrl-C stop
 * new cases, which are reported as skipped with why.
 */
export async function runCases(run: RunContext): Promise<CaseResult[]> {
  // Every case's writes, also those of a case that runs again on another workbench.
  const writes: Promise<void>[] = [];
  const ended: Promise<void>[] = [];
  let stopped = false;
  let failures = 0;
  const outcomes = await runPool(
    run.items,
    run.slots.filter((slot) => !slot.dead),
    {
      run: async (item, slot) => {
        const outcome = await runCaseJob(run, item, slot).catch((err: unknown) =>
          finished(notRun(item, 'the case could not run', classify(err).info)),
        );
        writes.push(outcome.done);
        return outcome;
      },
      slotAlive: (slot, outcome) => slotAlive(run, slot, outcome),
      abandoned: (item, reason) => finished(notRun(item, reason, { code: 'NO_WORKBENCH', message: reason })),
      shouldStop: () => run.signal.aborted || stopped,
      onSlotLost: (slot, item, retried) => {
        const why =
          slot.retired !== undefined
            ? `leaves the pool: ${slot.retired}; it may hold stale nodes`
            : `stopped answering during ${item.info.name}`;
        slot.dead = true;
        run.notice(
          `workbench ${slot.label} ${why}; ${retried ? `${item.info.name} runs again on another workbench` : `no other workbench is left to run ${item.info.name}`}`,
        );
      },
      onResult: (_item, { result, done }) => {
        if ((result.status === 'failed' || result.status === 'error') && ++failures >= run.maxFailures) stopped = true;
        ended.push(done.then(() => run.reporter.onCaseEnd?.(result)));
      },
    },
  );
  await Promise.all([...ended, ...writes]);
  const why = run.signal.aborted
    ? 'the run was interrupted'
    : run.failFast
      ? 'not run: --fail-fast stopped the run after a failure'
      : `not run: --max-failures stopped the run after ${run.maxFailures} failed cases`;
  return run.items.map((item, i) => {
    const result = outcomes[i]?.result;
    if (result) return result;
    const skipped = notRun(item, why);
    run.reporter.onCaseEnd?.(skipped);
    return skipped;
  });
}

/** Asked after every case: a case that erred in a way a lost workbench would explain makes the pool ping it. */
async function slotAlive(run: RunContext, slot: WorkbenchSlot, { result }: CaseOutcome): Promise<boolean> {
  if (slot.dead || slot.retired !== undefined) return false;
  if (result.status !== 'error' || !result.steps.some((s) => s.error && mayBeWorkbenchLoss(s.error))) return true;
  return answers(run, slot, 2000);
}
