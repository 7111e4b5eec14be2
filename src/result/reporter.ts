import type { Attempt, CaseInfo, CaseResult, RunResult, StepInfo, StepResult } from './result.js';

export interface RunStartInfo {
  startedAt: string;
  cases: CaseInfo[];
  /** Where the run goes, for one line of output: a URL without credentials, or `embedded`. */
  workbench: string;
  /** Number of parallel workers. */
  workers: number;
  /** The output folder (reporters get it named from the project root). */
  outputDir: string;
}

/**
 * What the runner tells the outside world. The runner never prints; it calls these through a
 * fan-out, and each reporter turns them into output and knows nothing else.
 */
export interface Reporter {
  /** How failures of this reporter are named (e.g. `html`); the fan-out falls back to the class name. */
  readonly name?: string;
  onRunStart?(info: RunStartInfo): void | Promise<void>;
  onCaseStart?(c: CaseInfo, worker: number): void;
  onStepStart?(c: CaseInfo, step: StepInfo): void;
  /** A failed attempt that will be retried. */
  onStepRetry?(c: CaseInfo, step: StepInfo, attempt: Attempt, delayMs: number): void;
  onStepEnd?(c: CaseInfo, result: StepResult): void;
  onCaseEnd?(result: CaseResult): void;
  /** Something a person should see that is not a step result (e.g. a golden was written). */
  onNotice?(message: string): void;
  onRunEnd?(result: RunResult): void | Promise<void>;
}

/** Where a console reporter writes: `process.stdout`, or anything with `write` (tests capture it). */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}
