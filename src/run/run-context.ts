import { randomBytes } from 'node:crypto';
import type { UpdateMode } from '../compare/golden.js';
import type { GoldenTemplate } from '../compare/golden-template.js';
import type { Plan } from '../compile/plan.js';
import type { WorkbenchClient } from '../client/client.js';
import type { Reporter } from '../result/reporter.js';
import type { CaseInfo, StepResult } from '../result/result.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import type { Resume } from './resume.js';
import type { Archives } from './archives.js';
import { DEFAULT_PREFETCH, Prefetch, type PrefetchOptions } from './prefetch.js';
import type { RunItem } from './run-item.js';
import type { Shard } from './shard.js';
import type { WorkbenchSlot, WorkbenchSource } from './workbenches.js';

export interface RunOptions {
  plans: readonly Plan[];
  /** Running workbenches (`{ urls }`) or a factory that starts them, e.g. `embeddedWorkbenches(2)`. */
  workbenches: WorkbenchSource;
  reporter: Reporter;
  /** Reports, the resume journal and the artefacts of failed assertions go here. */
  outputDir: string;
  retry?: RetryPolicy;
  /** Per step, all attempts included. */
  timeoutMs?: number;
  /** Per HTTP exchange, headers and body (the client's default: 30 s). */
  requestTimeoutMs?: number;
  /** Write each case's HTTP exchanges to `trace.jsonl` beside its artefacts. */
  trace?: boolean;
  /** A full run (no case left out): list the goldens no check used (`RunResult.unusedGoldens`). */
  listUnusedGoldens?: boolean;
  /** Stop taking new cases after the first that did not pass. */
  failFast?: boolean;
  /** Stop taking new cases after this many did not pass (`failFast` is 1). */
  maxFailures?: number;
  golden?: { update: UpdateMode; ci: boolean; template?: GoldenTemplate };
  /** Redo cohort studies the journal says are up to date. */
  force?: boolean;
  shard?: Shard;
  /** What to do with nodes wbplay did not make on a workbench given by URL (default: hide them for the run). */
  foreignNodes?: ForeignNodeMode;
  /** Ctrl-C: the current steps are aborted, the rest skipped, reports still written. */
  signal?: AbortSignal;
  /**
   * Called after each step that ran and before the next one starts, with the case's workbench:
   * the scene as that step left it (`wbplay ui` captures every window here). Its time is not
   * the step's, and whatever it throws is ignored: it cannot change a run.
   */
  afterStep?: AfterStep;
  /**
   * Tell the reporters every case's steps at the start however large the run (`wbplay ui`
   * shows them queued). Without it a cohort of more than OUTLINED_CASES lists its cases
   * without their steps, so none is compiled before its turn.
   */
  outlineEveryCase?: boolean;
  /** The DICOMweb archives cases retrieve their series from and steps store into. */
  archives?: Archives;
  /** How far ahead of the running cases their series are retrieved. */
  prefetch?: Partial<Omit<PrefetchOptions, 'skip'>>;
}

export type AfterStep = (c: CaseInfo, step: StepResult, client: WorkbenchClient, signal: AbortSignal) => Promise<void>;

/**
 * What a run does with nodes it finds on a running workbench that wbplay did not make (a
 * person's data): leave them, hide them for the run and show them again at its end, or remove
 * them. None of these deletes a person's data unless asked to.
 */
export type ForeignNodeMode = 'keep' | 'hide' | 'remove';
export const DEFAULT_FOREIGN_NODES: ForeignNodeMode = 'hide';

export const DEFAULT_STEP_TIMEOUT_MS = 120_000;

/**
 * One run as its stages see it: the options with their defaults, the cases it runs, what the
 * journal says about them, and the workbenches they run on.
 */
export class RunContext {
  /** Unique per run: node markers carry it, so two runs on one workbench never mix up nodes. */
  readonly runId = randomBytes(4).toString('hex');
  readonly plans: readonly Plan[];
  readonly reporter: Reporter;
  readonly outputDir: string;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly golden: { update: UpdateMode; ci: boolean; template?: GoldenTemplate };
  readonly failFast: boolean;
  /** Failed or erred cases after which no new case starts; Infinity when unbounded. */
  readonly maxFailures: number;
  readonly trace: boolean;
  readonly signal: AbortSignal;
  readonly afterStep: AfterStep | undefined;
  readonly archives: Archives | undefined;
  /** Retrieves the cases' series from their archives, ahead of their turn. */
  readonly prefetch: Prefetch | undefined;

  constructor(
    options: RunOptions,
    readonly items: readonly RunItem[],
    readonly resume: Resume,
    readonly slots: readonly WorkbenchSlot[],
  ) {
    this.plans = options.plans;
    this.reporter = options.reporter;
    this.outputDir = options.outputDir;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    this.golden = options.golden ?? { update: 'missing', ci: false };
    this.failFast = options.failFast === true;
    this.maxFailures = this.failFast ? 1 : (options.maxFailures ?? Number.POSITIVE_INFINITY);
    this.trace = options.trace === true;
    this.signal = options.signal ?? new AbortController().signal;
    this.afterStep = options.afterStep;
    this.archives = options.archives;
    this.prefetch =
      options.archives && items.some((i) => i.case.retrieve)
        ? new Prefetch(options.archives, items, {
            ...DEFAULT_PREFETCH,
            ...options.prefetch,
            skip: (item) => resume.mayBeUpToDate(item),
          })
        : undefined;
  }

  /** Files of the run's record that could not be written; the result lists them. */
  readonly unwritten: Array<{ path: string; message: string }> = [];

  /** A line for the reports about the run, not about one step. */
  readonly notice = (message: string): void => {
    this.reporter.onNotice?.(message);
  };

  /** A file of the run's record (a trace, the journal, the case spool) that could not be written. */
  readonly lost = (path: string, error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    this.unwritten.push({ path, message });
    this.notice(message.includes(path) ? message : `could not write ${path}: ${message}`);
  };
}
