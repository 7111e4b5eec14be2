import { portableLink } from '../files/portable-path.js';
import type { FigureProvenance } from '../files/provenance.js';

/**
 * The result of a run: plain data that the runner builds and every reporter reads. The JSON
 * report is this tree as it is (`RunResultTree`), so its shape is versioned.
 */
export const RESULT_VERSION = 1;

export type Status = 'passed' | 'failed' | 'error' | 'skipped';

/** A run's status: its cases' (see `runStatus`), or `interrupted` when a signal stopped it. */
export type RunStatus = Status | 'interrupted';

export interface SourceSpan {
  file: string;
  line: number;
  col: number;
}

/** A failure as data: codes are stable, messages are for people. */
export interface ErrorInfo {
  code: string;
  message: string;
  /** HTTP status when the workbench answered. */
  status?: number;
  hint?: string;
}

export interface Attempt {
  /** 1-based. */
  n: number;
  startedAt: string;
  durationMs: number;
  error?: ErrorInfo;
}

export interface Artefact {
  kind: 'screenshot' | 'golden' | 'expected' | 'actual' | 'diff' | 'figure';
  /** Path relative to the output folder where possible. */
  path: string;
  /** What made a figure: the same as its PNG text chunks. */
  provenance?: FigureProvenance;
  /** A contact sheet's layout and tiles (paths as `path`), so merged shards can draw the whole cohort's. */
  sheet?: SheetRecord;
}

export interface SheetRecord {
  columns?: number;
  tile_width?: number;
  /** Paginated sheets: tiles per page, the page (1-based) and the file name the pages share. */
  per_sheet?: number;
  page?: number;
  save?: string;
  tiles: Array<{ case: string; path: string; label: string }>;
}

/** How different two images may be: pixelmatch's per-pixel colour threshold and the allowed count. */
export interface Tolerance {
  /** Per-pixel colour distance (0..1, pixelmatch semantics) below which a pixel counts as equal. */
  threshold: number;
  maxDiffPixels?: number;
  /** Allowed share of differing pixels, 0..1. */
  maxDiffRatio?: number;
}

export interface ImageAssertion {
  golden: string;
  outcome: 'identical' | 'within-tolerance' | 'different' | 'size-mismatch' | 'written' | 'updated';
  diffPixels?: number;
  diffRatio?: number;
  totalPixels?: number;
  tolerance?: Tolerance;
  actualSize?: { width: number; height: number };
  expectedSize?: { width: number; height: number };
  message: string;
}

export interface StepInfo {
  index: number;
  kind: string;
  description: string;
  span: SourceSpan;
}

export interface StepResult extends StepInfo {
  status: Status;
  durationMs: number;
  attempts: Attempt[];
  error?: ErrorInfo;
  skippedReason?: string;
  /** The step as planned, and as run once run-time values (node UIDs) were filled in. */
  args: unknown;
  resolvedArgs?: unknown;
  artefacts: Artefact[];
  image?: ImageAssertion;
  notices: string[];
}

export interface CaseInfo {
  id: string;
  name: string;
  playbook: string;
  /** The study bindings of a cohort case. */
  study?: Record<string, unknown>;
  steps: StepInfo[];
}

export interface CaseResult extends Omit<CaseInfo, 'steps'> {
  status: Status;
  durationMs: number;
  /** Which workbench ran it (URL without credentials, or `embedded`). */
  workbench?: string;
  /** Its HTTP exchanges (`--trace`), relative to the output folder where possible. */
  trace?: string;
  /**
   * Set when this run found the study up to date (a cohort study whose inputs and outputs are
   * unchanged): the rest is the result of the run that made its outputs, which finished it then.
   */
  upToDate?: { finishedAt: string };
  steps: StepResult[];
}

/**
 * What stays in memory of an ended case: enough to count, order and summarise a run, and for
 * the post-run stages, whose figures need each case's id and verdict but never its steps.
 */
export interface CaseSummary {
  id: string;
  name: string;
  playbook: string;
  status: Status;
  durationMs: number;
  workbench?: string;
  /** A skipped case's reason (its first step's). */
  skippedReason?: string;
  /** The case's result is that of an earlier run: the study was up to date. */
  upToDate?: true;
}

export function summaryOf(c: CaseResult): CaseSummary {
  const reason = c.status === 'skipped' ? c.steps[0]?.skippedReason : undefined;
  return {
    id: c.id,
    name: c.name,
    playbook: c.playbook,
    status: c.status,
    durationMs: c.durationMs,
    ...(c.workbench !== undefined ? { workbench: c.workbench } : {}),
    ...(reason !== undefined ? { skippedReason: reason } : {}),
    ...(c.upToDate ? { upToDate: true as const } : {}),
  };
}

/**
 * The cases of a run in case order. Only their summaries are held; a whole case is read when it
 * is asked for, so a run of any size is written out one case at a time.
 */
export interface CaseList extends AsyncIterable<CaseResult> {
  readonly summaries: readonly CaseSummary[];
  /** The cases at these positions, in the order given. */
  pick(positions: Iterable<number>): AsyncIterable<CaseResult>;
  /** Every case at once: for small runs and tests; a large run is read with `for await`. */
  all(): Promise<CaseResult[]>;
  /** Reads cases by position until closed: for a caller that reads a few at a time, in its own order. */
  reader(): Promise<CaseReader>;
}

/** Reads cases by position between `open` and `close`, so a pass over many cases opens its files once. */
export interface CaseReader {
  read(position: number): Promise<CaseResult>;
  close(): Promise<void>;
}

export interface Provenance {
  playbooks: Array<{ path: string; sha256: string }>;
  workbench?: { name?: string; url?: string; engine_version?: string; api_version?: string };
  wbplay: string;
}

export interface Summary {
  total: number;
  passed: number;
  failed: number;
  error: number;
  skipped: number;
  /** Of the cases counted above, those whose result is an earlier run's (up to date); absent when none. */
  upToDate?: number;
}

/** A run's result but its cases: small, whatever the size of the run. */
export interface RunHead {
  version: typeof RESULT_VERSION;
  startedAt: string;
  durationMs: number;
  status: RunStatus;
  /** The signal that stopped an interrupted run (`SIGINT`, `SIGTERM`). */
  signal?: string;
  /** One shard of a run (`--shard`), and how many cases the whole run has over every shard. */
  shard?: { index: number; count: number; total: number };
  provenance: Provenance;
  summary: Summary;
  /**
   * Files of the run's record that could not be written (a trace, the resume journal, the
   * case spool), with the operating system's message. Outputs of steps are not here: a step
   * whose file was not written has failed with that message.
   */
  unwritten?: Array<{ path: string; message: string }>;
  /** Figures of the whole run (a cohort's contact sheet), relative to the output folder where possible. */
  figures?: Artefact[];
  /** After a full run: golden images in the checks' folders that no check used (absolute paths). */
  unusedGoldens?: string[];
}

/**
 * The result of a run as the runner returns it and reporters get it: its cases are read one at
 * a time (`for await`), with a summary of each at hand.
 */
export interface RunResult extends RunHead {
  cases: CaseList;
}

/** The result of a run as one tree, as report.json holds it. */
export interface RunResultTree extends RunHead {
  cases: CaseResult[];
}

/** A case fails when any step failed, errs when any step erred (and none failed), and is skipped when every step was. */
export function caseStatus(steps: readonly StepResult[]): Status {
  if (steps.some((s) => s.status === 'failed')) return 'failed';
  if (steps.some((s) => s.status === 'error')) return 'error';
  if (steps.length > 0 && steps.every((s) => s.status === 'skipped')) return 'skipped';
  return 'passed';
}

export function summarize(cases: ReadonlyArray<{ status: Status; upToDate?: unknown }>): Summary {
  const summary: Summary = { total: cases.length, passed: 0, failed: 0, error: 0, skipped: 0 };
  let upToDate = 0;
  for (const c of cases) {
    summary[c.status]++;
    if (c.upToDate) upToDate++;
  }
  if (upToDate > 0) summary.upToDate = upToDate;
  return summary;
}

/** A run fails when a case failed, errs when a case erred, is skipped when every case was. */
export function runStatus(cases: ReadonlyArray<{ status: Status }>): Status {
  if (cases.some((c) => c.status === 'failed')) return 'failed';
  if (cases.some((c) => c.status === 'error')) return 'error';
  if (cases.length > 0 && cases.every((c) => c.status === 'skipped')) return 'skipped';
  return 'passed';
}

/** An artefact as reports keep it: relative to the output folder (with `/`), so the folder can move as a whole. */
export function artefactAt(outputDir: string, path: string, kind: Artefact['kind']): Artefact {
  return { kind, path: portableLink(outputDir, path) };
}

/** A step's result before it ran: no attempts, no artefacts; `status` says how it starts. */
export function stepResultOf(step: StepInfo & { args: unknown }, status: Status): StepResult {
  return {
    index: step.index,
    kind: step.kind,
    description: step.description,
    span: step.span,
    status,
    durationMs: 0,
    attempts: [],
    args: step.args,
    artefacts: [],
    notices: [],
  };
}
