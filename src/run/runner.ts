import { createHash, randomBytes } from 'node:crypto';
import { join, relative, resolve, sep } from 'node:path';
import type { UpdateMode } from '../compare/golden.js';
import type { Plan, PlanCase } from '../compile/plan.js';
import type { Reporter } from '../report/reporter.js';
import { registry } from '../steps/registry.js';
import type { StepDefinition, StepKind } from '../steps/step-definition.js';
import { VERSION } from '../version.js';
import { runCase, type RunnableStep } from './case-runner.js';
import { CaseState, removeNodes } from './case-context.js';
import { classify, mayBeWorkbenchLoss } from './classify.js';
import { FileHasher } from './file-hash.js';
import { Manifest } from './manifest.js';
import { runPool } from './pool.js';
import { runPostRunStages } from './post-run.js';
import { caseStatus, RESULT_VERSION, runStatus, stepResultOf, summarize, type CaseInfo, type CaseResult, type ErrorInfo, type Provenance, type RunResult, type StepResult } from './result.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { selectShard, type Shard } from './shard.js';
import { closeWorkbenches, openWorkbenches, type WorkbenchSlot, type WorkbenchSource } from './workbenches.js';

export interface RunOptions {
  plans: readonly Plan[];
  workbenches: WorkbenchSource;
  reporter: Reporter;
  /** Reports, manifest and the artefacts of failed assertions go here. */
  outputDir: string;
  retry?: RetryPolicy;
  /** Per step, all attempts included. */
  timeoutMs?: number;
  /** Stop taking new cases after the first that did not pass. */
  failFast?: boolean;
  golden?: { update: UpdateMode; ci: boolean };
  /** Redo cohort studies the manifest says are up to date. */
  force?: boolean;
  shard?: Shard;
  /** Ctrl-C: the current steps are aborted, the rest skipped, reports still written. */
  signal?: AbortSignal;
}

export const DEFAULT_STEP_TIMEOUT_MS = 120_000;

/** One case of one plan: the unit that runs on a workbench. */
interface Item {
  plan: Plan;
  case: PlanCase;
  number: number;
  info: CaseInfo;
  /** Cohort studies are resumable; other cases always run. */
  resumable: boolean;
  /** Shard key: the same on every machine (playbook name and case id). */
  key: string;
  /** Manifest key: which playbook file (from the output folder) and which case. */
  resumeKey: string;
}

/**
 * Runs compiled plans: every case on a workbench session of the pool, steps in order with the
 * one retry policy, events to the reporter, and a result tree at the end. The runner never
 * prints; every workbench it started is stopped before it returns.
 */
export async function runPlans(options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const runId = randomBytes(4).toString('hex');
  const signal = options.signal ?? new AbortController().signal;
  const items = selectItems(options.plans, options.shard, options.outputDir);
  const { reporter } = options;
  const resumable = items.some((i) => i.resumable);
  const manifest = resumable ? await Manifest.open(options.outputDir) : undefined;
  const hasher = manifest?.hasher ?? new FileHasher();
  // The hashes of a case's data files serve both its resume key and its figures' provenance.
  const inputHashes = new Map<Item, Promise<Record<string, string>>>();
  const inputFiles = (item: Item): Promise<Record<string, string>> => {
    let files = inputHashes.get(item);
    if (!files) inputHashes.set(item, (files = hashFiles(item.case.inputs, hasher)));
    return files;
  };
  if (manifest?.notice) reporter.onNotice?.(manifest.notice);

  const slots = await openWorkbenches(options.workbenches, items.length);
  const finishing = new Map<CaseResult, Promise<void>>();
  const ended: Promise<void>[] = [];
  let stopped = false;
  try {
    await reporter.onRunStart?.({ startedAt, cases: items.map((i) => i.info), workbench: slots.map((s) => s.label).join(', '), workers: slots.length, outputDir: options.outputDir });
    const runItem = async (item: Item, slot: WorkbenchSlot): Promise<CaseResult> => {
      if (signal.aborted) return notRun(item, 'the run was interrupted');
      const inputHash = item.resumable ? await hashInputs(item, await inputFiles(item)) : '';
      if (manifest && item.resumable && !options.force && (await manifest.isUpToDate(item.resumeKey, inputHash))) {
        return notRun(item, 'up to date (inputs and outputs unchanged since the last run; --force runs it again)');
      }
      reporter.onCaseStart?.(item.info, slot.id);
      const leftovers = slot.leftovers.splice(0);
      try {
        await removeNodes(slot, leftovers, signal);
      } catch (err) {
        return notRun(item, 'the workbench could not be cleared of the previous study', classify(err).info);
      }
      // A study that runs again keeps its old record until it passes: should this run be killed,
      // whatever it rewrote no longer matches the recorded hashes, so it is not taken as done.
      const { case: result, state } = await runOne(item, slot, runId, options, hasher, inputFiles(item), signal);
      // The last writes and the manifest record finish while the workbench takes the next
      // case; the case is reported (and counted) only once they are done.
      finishing.set(result, (async () => {
        await settleOutputs(result, state);
        if (!manifest || !item.resumable || result.status !== 'passed') return;
        try {
          await manifest.record(item.resumeKey, { inputHash, outputs: Object.fromEntries(state.outputs), finishedAt: new Date().toISOString() });
        } catch (err) {
          reporter.onNotice?.(`${item.info.name} passed but could not be recorded in ${manifest.path} (${(err as Error).message}); it runs again next time`);
        }
      })());
      return result;
    };
    const pooled = await runPool(items, slots, {
      // Whatever goes wrong with one case stays with that case: the others' results are kept.
      run: (item, slot) => runItem(item, slot).catch((err: unknown) => notRun(item, 'the case could not run', classify(err).info)),
      slotAlive: async (slot, result) => {
        if (slot.dead) return false;
        if (result.status !== 'error' || !result.steps.some((s) => s.error && mayBeWorkbenchLoss(s.error))) return true;
        return slot.client.ping({ timeoutMs: 2000 }).catch(() => false);
      },
      abandoned: (item, reason) => notRun(item, reason, { code: 'NO_WORKBENCH', message: reason }),
      shouldStop: () => signal.aborted || stopped,
      onSlotLost: (slot, item, retried) => {
        slot.dead = true;
        reporter.onNotice?.(`workbench ${slot.label} stopped answering during ${item.info.name}; ${retried ? 'the case runs again on another workbench' : 'no other workbench is left to run it'}`);
      },
      onResult: (_item, result) => {
        if (options.failFast && (result.status === 'failed' || result.status === 'error')) stopped = true;
        ended.push(
          (finishing.get(result) ?? Promise.resolve()).then(() => reporter.onCaseEnd?.(result)),
        );
      },
    });
    // Cases handed to another workbench still finish their writes before the run ends.
    await Promise.all([...ended, ...finishing.values()]);
    // Cases never started (fail-fast, Ctrl-C) are reported as skipped, with why.
    const why = signal.aborted ? 'the run was interrupted' : 'not run: --fail-fast stopped the run after a failure';
    const cases = items.map((item, i) => {
      const result = pooled[i];
      if (result) return result;
      const skipped = notRun(item, why);
      reporter.onCaseEnd?.(skipped);
      return skipped;
    });
    const figures = await runPostRunStages(items.map((item, i) => ({ plan: item.plan, result: cases[i]! })), options.outputDir, (message) => reporter.onNotice?.(message));
    const run: RunResult = {
      version: RESULT_VERSION,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      status: runStatus(cases),
      provenance: provenanceOf(options.plans, slots),
      cases,
      summary: summarize(cases),
      ...(figures.length > 0 ? { figures } : {}),
    };
    await reporter.onRunEnd?.(run);
    return run;
  } finally {
    await closeWorkbenches(slots);
  }
}

function selectItems(plans: readonly Plan[], shard: Shard | undefined, outputDir: string): Item[] {
  const all: Item[] = [];
  for (const plan of plans) {
    for (const c of plan.cases) {
      all.push({
        plan,
        case: c,
        number: all.length + 1,
        resumable: plan.foreach !== undefined,
        key: `${plan.name}/${c.id}`,
        resumeKey: `${relative(outputDir, resolve(plan.playbook.path)).split(sep).join('/')}#${c.id}`,
        info: {
          id: c.id,
          name: plan.cases.length === 1 && !plan.foreach ? plan.name : `${plan.name} · ${c.name}`,
          playbook: plan.playbook.path,
          ...(c.study ? { study: c.study } : {}),
          steps: c.steps.map((s) => ({ index: s.index, kind: s.kind, description: s.description, span: s.span })),
        },
      });
    }
  }
  return shard ? selectShard(all, (i) => i.key, shard) : all;
}

async function runOne(item: Item, slot: WorkbenchSlot, runId: string, options: RunOptions, hasher: FileHasher, inputs: Promise<Record<string, string>>, signal: AbortSignal): Promise<{ case: CaseResult; state: CaseState }> {
  const { plan } = item;
  const state = new CaseState({
    runId,
    caseNumber: item.number,
    slot,
    outputDir: options.outputDir,
    artefactDir: join(options.outputDir, 'artefacts', safeName(item.plan.name), safeName(item.case.id)),
    golden: options.golden ?? { update: 'missing', ci: false },
    timeoutMs: options.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
    hasher,
    provenance: async () => {
      slot.info ??= await slot.client.info({ signal });
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
    return { index: s.index, kind: s.kind, description: s.description, span: s.span, args: s.args, run: (ctx) => definition.run(s.args, ctx) };
  });
  const result = await runCase(item.info, steps, {
    policy: options.retry ?? DEFAULT_RETRY,
    classify,
    context: (step, attempt, stepSignal, notice) => state.context(step, attempt, stepSignal, notice),
    reporter: options.reporter,
    timeoutMs: options.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
    signal,
    workbench: slot.label,
  });
  slot.leftovers.push(...state.created);
  return { case: result, state };
}

/** Waits for a case's output writes; a file that could not be written fails the step that made it, and so the case. */
async function settleOutputs(result: CaseResult, state: CaseState): Promise<void> {
  for (const { step, error } of await state.settle()) {
    const failed = result.steps.find((s) => s.index === step);
    if (!failed) continue;
    failed.status = 'error';
    failed.error = { code: 'OUTPUT_NOT_WRITTEN', message: `could not write an output: ${error.message}`, hint: 'check that the output folder is writable and the disk is not full' };
    result.status = caseStatus(result.steps);
  }
}

/** A case that did not run: every step skipped with the reason; an error makes it count as one. */
function notRun(item: Item, reason: string, error?: ErrorInfo): CaseResult {
  const steps: StepResult[] = item.case.steps.map((s) => ({ ...stepResultOf(s, 'skipped'), skippedReason: error ? `${reason}: ${error.message}` : reason }));
  const first = steps[0];
  if (error && first) {
    first.status = 'error';
    first.error = error;
    delete first.skippedReason;
  }
  const { steps: _infoSteps, ...info } = item.info;
  return { ...info, status: error ? 'error' : 'skipped', durationMs: 0, steps };
}

/**
 * What a study's result depends on: the playbook and its includes, the study's data files,
 * and the compiled steps (which hold the variables' values). wbplay's version is part of it,
 * since a new version may draw differently.
 */
function hashInputs(item: Item, files: Record<string, string>): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ wbplay: VERSION, sources: item.plan.sources.map((s) => s.sha256), steps: item.case.steps.map((s) => [s.kind, s.args]), study: item.case.study ?? null }));
  h.update(JSON.stringify(files));
  return h.digest('hex');
}

async function hashFiles(paths: readonly string[], hasher: FileHasher): Promise<Record<string, string>> {
  const entries = await Promise.all(paths.map(async (p) => [p, (await hasher.hash(p)) ?? 'missing'] as const));
  return Object.fromEntries(entries);
}

function provenanceOf(plans: readonly Plan[], slots: readonly WorkbenchSlot[]): Provenance {
  const info = slots.find((s) => s.info)?.info;
  const label = slots[0]?.label;
  return {
    playbooks: plans.flatMap((p) => p.sources.map((s) => ({ path: s.path, sha256: s.sha256 }))),
    ...(info || label ? { workbench: { ...(label ? { url: label } : {}), ...(info ? { name: info.name, engine_version: info.engine_version, api_version: info.api_version } : {}) } } : {}),
    wbplay: VERSION,
  };
}

/** A case id as a folder name: no separators, nothing hidden. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
}
