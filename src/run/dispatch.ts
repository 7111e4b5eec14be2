import { Backlog } from './backlog.js';
import { runCaseJob, finished, type CaseOutcome } from './case-job.js';
import type { CaseSpool } from './case-spool.js';
import { classify, mayBeWorkbenchLoss } from './classify.js';
import { answers } from './clean-up.js';
import { runPool } from './pool.js';
import type { CaseResult } from '../result/result.js';
import type { RunContext } from './run-context.js';
import { notRun } from './run-item.js';
import type { WorkbenchSlot } from './workbenches.js';

/** Cases of one workbench whose files and journal line may still be on their way to disk. */
export const CASES_FINISHING = 2;

/**
 * Runs the cases of a run on its pool of workbenches and hands each result to the spool at
 * its place in case order. A case's end is reported once its writes are done. Whatever goes
 * wrong with one case stays with that case; a workbench that stops answering leaves the pool;
 * fail-fast and Ctrl-C stop new cases, which are reported as skipped with why.
 */
export async function runCases(run: RunContext, spool: CaseSpool): Promise<void> {
  // Every case's writes, also those of a case that runs again on another workbench.
  const writes = new Set<Promise<void>>();
  const ended = new Set<Promise<void>>();
  const settle = (set: Set<Promise<void>>, p: Promise<void>): void => {
    // Settled promises leave the set, so a long run holds only those of the cases in flight.
    const held = p.finally(() => set.delete(held));
    set.add(held);
  };
  const finishing = new Map<WorkbenchSlot, Backlog>();
  const done = new Array<boolean>(run.items.length).fill(false);
  let stopped = false;
  let failures = 0;
  await runPool(
    run.items,
    run.slots.filter((slot) => !slot.dead),
    {
      run: async (item, slot) => {
        // A workbench takes its next case while the last one's files are still being written,
        // but not while CASES_FINISHING of its cases are: memory stays bounded on a slow disk.
        let behind = finishing.get(slot);
        if (!behind) finishing.set(slot, (behind = new Backlog(CASES_FINISHING)));
        if (behind.full) await behind.room();
        const outcome = await runCaseJob(run, item, slot).catch((err: unknown) =>
          finished(notRun(item, 'the case could not run', classify(err).info)),
        );
        settle(writes, outcome.done);
        behind.add(outcome.done);
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
      onResult: (_item, { result, done: written }, index) => {
        done[index] = true;
        const bad = (): boolean => result.status === 'failed' || result.status === 'error';
        // Counted at once, so the next case does not start past the limit; a file that turns
        // out not to be written may fail the case later, and counts then.
        const counted = bad();
        if (counted && ++failures >= run.maxFailures) stopped = true;
        settle(
          ended,
          written.then(() => {
            if (!counted && bad() && ++failures >= run.maxFailures) stopped = true;
            spool.add(index, result);
            run.reporter.onCaseEnd?.(result);
          }),
        );
      },
    },
  );
  while (ended.size > 0 || writes.size > 0) await Promise.all([...ended, ...writes]);
  const why = run.signal.aborted
    ? 'the run was interrupted'
    : run.failFast
      ? 'not run: --fail-fast stopped the run after a failure'
      : `not run: --max-failures stopped the run after ${run.maxFailures} failed cases`;
  run.items.forEach((item, index) => {
    if (done[index]) return;
    const skipped: CaseResult = notRun(item, why);
    spool.add(index, skipped);
    run.reporter.onCaseEnd?.(skipped);
  });
}

/** Asked after every case: a case that erred in a way a lost workbench would explain makes the pool ping it. */
async function slotAlive(run: RunContext, slot: WorkbenchSlot, { result }: CaseOutcome): Promise<boolean> {
  if (slot.dead || slot.retired !== undefined) return false;
  if (result.status !== 'error' || !result.steps.some((s) => s.error && mayBeWorkbenchLoss(s.error))) return true;
  return answers(run, slot, 2000);
}
