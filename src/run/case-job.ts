import { join, relative } from 'node:path';
import { PlaybookError } from '../diagnostics/diagnostic.js';
import { registry } from '../steps/registry.js';
import type { StepDefinition, StepKind } from '../steps/step-definition.js';
import { VERSION } from '../version.js';
import { CaseState } from './case-context.js';
import { clearLeftovers } from './clean-up.js';
import { runCase, type RunnableStep } from './case-runner.js';
import { classify, classifyArchive } from './classify.js';
import type { CaseResult } from '../result/result.js';
import type { RunContext } from './run-context.js';
import { CaseTrace } from './trace.js';
import { compiledItem, notCompiled, notRun, type RunItem } from './run-item.js';
import type { WorkbenchSlot } from './workbenches.js';

/**
 * One case on one workbench: skipped when the run was interrupted, its last result when the
 * journal has it up to date; else the previous study's nodes are removed and its steps run in
 * order.
 */
export async function runCaseJob(run: RunContext, queued: RunItem, slot: WorkbenchSlot): Promise<CaseOutcome> {
  if (run.signal.aborted) return finished(notRun(queued, 'the run was interrupted'));
  // A cohort's case is compiled now, and dropped with the job once it has ended.
  let item: RunItem;
  try {
    item = compiledItem(queued);
  } catch (err) {
    if (err instanceof PlaybookError) return finished(notCompiled(queued, err));
    throw err;
  }
  let inputHash: Promise<string>;
  if (run.resume.mayBeUpToDate(item)) {
    const hash = await run.resume.inputHash(item);
    const last = await run.resume.upToDate(item, hash);
    if (last) return finished(last);
    inputHash = Promise.resolve(hash);
  } else {
    // Not awaited here: the first request goes out while the data files are hashed. The
    // provenance of the case's first figure and its journal line wait for the hashes.
    inputHash = run.resume.inputHash(item);
    inputHash.catch(() => undefined);
  }
  run.reporter.onCaseStart?.(item.info, slot.id);
  if (item.case.retrieve) {
    const missing = await retrieveSeries(run, queued, item);
    if (missing) return finished(missing);
  }
  const artefactDir = join(run.outputDir, 'artefacts', safeName(item.plan.name), safeName(item.case.id));
  const trace = run.trace ? new CaseTrace() : undefined;
  slot.onExchange = trace?.record;
  try {
    return await runOnSlot(run, item, slot, inputHash, artefactDir, trace);
  } finally {
    slot.onExchange = undefined;
  }
}

/**
 * Waits for the case's series from its archive (fetched ahead while earlier cases ran); the
 * case's result when they cannot be had: the case errs, and the cohort goes on.
 */
async function retrieveSeries(run: RunContext, queued: RunItem, item: RunItem): Promise<CaseResult | undefined> {
  if (!run.prefetch) {
    return notRun(item, 'its series are in a DICOMweb archive', {
      code: 'NO_ARCHIVE',
      message: 'this run was started without access to DICOMweb archives',
      hint: 'run it with `wbplay run`, which retrieves the series of a `foreach: dicomweb`',
    });
  }
  try {
    await run.prefetch.ready(queued);
    return undefined;
  } catch (err) {
    if (run.signal.aborted) return notRun(item, 'the run was interrupted');
    return notRun(item, 'its series could not be retrieved from the archive', classifyArchive(err).info);
  }
}

async function runOnSlot(
  run: RunContext,
  item: RunItem,
  slot: WorkbenchSlot,
  inputHash: Promise<string>,
  artefactDir: string,
  trace: CaseTrace | undefined,
): Promise<CaseOutcome> {
  const failed = await clearLeftovers(run, slot);
  if (failed) {
    // The workbench may hold the old study's nodes: it leaves the pool, and this study runs
    // on another workbench (the pool retries it there) rather than on leftovers.
    slot.retired = `its scene could not be cleared of ${failed.owner} (${failed.error.code}: ${failed.error.message})`;
    return finished(notRun(item, `workbench ${slot.label} could not be cleared of ${failed.owner}`, failed.error));
  }
  const { result, state, settled } = await runSteps(run, item, slot, artefactDir, trace);
  const tracePath = join(artefactDir, 'trace.jsonl');
  if (trace) result.trace = relative(run.outputDir, tracePath);
  // Behind the next case's exchanges: the last files land, their folders are flushed together,
  // and only then is the study journalled as done, so a journal line never names a file that
  // a power loss could take back.
  const done = (async () => {
    await settled;
    const flushed = await state.flush().then(
      () => true,
      (err: unknown) => {
        run.lost(artefactDir, err);
        return false;
      },
    );
    if (trace) await trace.write(tracePath).catch((err: unknown) => run.lost(tracePath, err));
    if (flushed) await run.resume.record(item, inputHash, result, state.outputs, run);
  })();
  return { result, done };
}

/**
 * A case's result, and its last output writes and journal record: those finish while its
 * workbench takes the next case, and the case is reported (and counted) once they are done.
 */
export interface CaseOutcome {
  result: CaseResult;
  done: Promise<void>;
}

/** An outcome with nothing left to finish: a case that did not run. */
export function finished(result: CaseResult): CaseOutcome {
  return { result, done: Promise.resolve() };
}

async function runSteps(
  run: RunContext,
  item: RunItem,
  slot: WorkbenchSlot,
  artefactDir: string,
  trace: CaseTrace | undefined,
): Promise<{ result: CaseResult; state: CaseState; settled: Promise<void> }> {
  const { plan } = item;
  const inputs = run.resume.inputFiles(item);
  const state = new CaseState({
    runId: run.runId,
    caseNumber: item.number,
    slot,
    outputDir: run.outputDir,
    artefactDir,
    golden: run.golden,
    timeoutMs: run.timeoutMs,
    hasher: run.resume.hasher,
    ...(run.archives ? { archives: run.archives.forSteps() } : {}),
    ...(item.case.study ? { study: item.case.study } : {}),
    provenance: async () => {
      slot.info ??= await slot.client.info({ signal: run.signal });
      return {
        playbook: plan.playbook.path,
        playbookSha256: plan.playbook.sha256,
        workbench: slot.info.name,
        engine_version: slot.info.engine_version,
        api_version: slot.info.api_version,
        inputs: await inputs,
        version: VERSION,
      };
    },
  });
  const steps: RunnableStep[] = item.case.steps.map((s) => {
    const definition = registry[s.kind] as StepDefinition<StepKind, unknown>;
    return {
      index: s.index,
      kind: s.kind,
      description: s.description,
      span: s.span,
      args: s.args,
      soft: definition.soft === true,
      run: (ctx) => definition.run(s.args, ctx),
    };
  });
  const { result, settled } = await runCase(item.info, steps, {
    policy: run.retry,
    classify,
    context: (step, attempt, signal, notice) => {
      trace?.at(step.index, attempt);
      return state.context(step, attempt, signal, notice);
    },
    written: (step) => state.written(step),
    reporter: run.reporter,
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    workbench: slot.label,
    ...(run.afterStep ? { afterStep: (c, r) => run.afterStep!(c, r, slot.client, run.signal) } : {}),
  });
  if (state.created.length > 0) slot.leftovers = { owner: item.info.name, uids: [...state.created] };
  return { result, state, settled };
}

/** A case id as a folder name: no separators, nothing hidden. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
}
