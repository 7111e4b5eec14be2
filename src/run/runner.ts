import type { Plan } from '../compile/plan.js';
import { VERSION } from '../version.js';
import { CaseSpool } from './case-spool.js';
import { runCases } from './dispatch.js';
import { runPostRunStages } from './post-run.js';
import { RESULT_VERSION, runStatus, summarize, type Provenance, type RunResult } from '../result/result.js';
import { checkWorkbenches } from './preflight.js';
import { Resume } from './resume.js';
import { prepareScenes, restoreScenes } from './scene.js';
import { DEFAULT_FOREIGN_NODES, RunContext, type RunOptions } from './run-context.js';
import { selectItems } from './run-item.js';
import { unusedGoldens } from './unused-goldens.js';
import { closeWorkbenches, openWorkbenches, type WorkbenchSlot } from './workbenches.js';

export { DEFAULT_STEP_TIMEOUT_MS, type RunOptions } from './run-context.js';

/**
 * Runs compiled plans: every case on a workbench of the pool, steps in order with the one
 * retry policy, events to the reporter, then the plans' post-run stages, and the run's result
 * at the end. Each case's result goes to a spool in the output folder as it ends
 * (`wbplay-cases.jsonl`), and the result reads the cases back from there, so memory does not
 * grow with the number of cases. The runner never prints; every workbench it started is
 * stopped before it returns.
 */
export async function runPlans(options: RunOptions): Promise<RunResult> {
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const items = selectItems(options.plans, options.shard, options.outputDir);
  const resume = await Resume.open(items, options.outputDir, options.force === true);
  if (resume.notice) options.reporter.onNotice?.(resume.notice);
  const slots = await openWorkbenches(
    options.workbenches,
    items.length,
    options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {},
  );
  const run = new RunContext(options, items, resume, slots);
  let spool: CaseSpool | undefined;
  try {
    await checkWorkbenches(run);
    await prepareScenes(run, options.foreignNodes ?? DEFAULT_FOREIGN_NODES);
    spool = await CaseSpool.create(run.outputDir, items.length);
    await run.reporter.onRunStart?.({
      startedAt,
      cases: items.map((i) => i.info),
      workbench: slots.map((s) => s.label).join(', '),
      workers: slots.length,
      outputDir: run.outputDir,
    });
    await runCases(run, spool);
    const cases = await spool.finish();
    // Nothing is lost with it (the cases were kept in memory), but the reports may fare no better.
    if (spool.failure) run.notice(`${spool.failure.message}; the case results were kept in memory instead`);
    spool = undefined;
    // Nothing after the cases needs a workbench: the scene is given back and the workbenches
    // stopped before the figures and reports are made, so a restore that failed is in the
    // reports and the memory of embedded workbenches is free again while they are written.
    await restoreScenes(run);
    await closeWorkbenches(slots);
    await resume.compact(run.notice);
    const figures = await runPostRunStages(run, cases.summaries);
    const unused = options.listUnusedGoldens && !options.shard ? await unusedGoldens(run.plans) : [];
    const result: RunResult = {
      version: RESULT_VERSION,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      status: run.signal.aborted ? 'interrupted' : runStatus(cases.summaries),
      ...(run.signal.aborted ? signalOf(run.signal) : {}),
      ...(options.shard
        ? { shard: { ...options.shard, total: options.plans.reduce((n, p) => n + p.cases.length, 0) } }
        : {}),
      provenance: provenanceOf(run.plans, slots),
      cases,
      summary: summarize(cases.summaries),
      ...(figures.length > 0 ? { figures } : {}),
      ...(unused.length > 0 ? { unusedGoldens: unused } : {}),
      ...(run.unwritten.length > 0 ? { unwritten: run.unwritten } : {}),
    };
    await run.reporter.onRunEnd?.(result);
    return result;
  } finally {
    await spool?.discard();
    await restoreScenes(run);
    await closeWorkbenches(slots);
  }
}

/** The playbooks and, as far as one was asked, the workbench that ran them. */
function provenanceOf(plans: readonly Plan[], slots: readonly WorkbenchSlot[]): Provenance {
  const info = slots.find((s) => s.info)?.info;
  const label = slots[0]?.label;
  return {
    playbooks: plans.flatMap((p) => p.sources.map((s) => ({ path: s.path, sha256: s.sha256 }))),
    ...(info || label
      ? {
          workbench: {
            ...(label ? { url: label } : {}),
            ...(info ? { name: info.name, engine_version: info.engine_version, api_version: info.api_version } : {}),
          },
        }
      : {}),
    wbplay: VERSION,
  };
}

/** The signal named by the reason a run was aborted with, when the CLI gave one. */
function signalOf(signal: AbortSignal): { signal?: string } {
  const name = (signal.reason as { signal?: unknown } | undefined)?.signal;
  return typeof name === 'string' ? { signal: name } : {};
}
