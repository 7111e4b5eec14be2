import type { Reporter } from '../result/reporter.js';
import type { StepOutcome, StepRunContext } from '../steps/run-context.js';
import {
  caseStatus,
  stepResultOf,
  type CaseInfo,
  type CaseResult,
  type ErrorInfo,
  type StepInfo,
  type StepResult,
  type Attempt,
} from '../result/result.js';
import { withRetry, type Classified, type RetryPolicy } from './retry.js';

/** One step of a case as the runner needs it: the plan's step plus how to run it. */
export interface RunnableStep extends StepInfo {
  args: unknown;
  /** A failed check that does not end the case (see StepDefinition.soft). */
  soft?: boolean;
  run(ctx: StepRunContext): Promise<StepOutcome>;
}

export interface CaseRunOptions {
  policy: RetryPolicy;
  classify(err: unknown): Classified;
  /** Builds the context of one attempt of one step; `notice` adds a line to the step's result. */
  context(step: RunnableStep, attempt: number, signal: AbortSignal, notice: (message: string) => void): StepRunContext;
  reporter: Reporter;
  timeoutMs: number;
  /** Aborted by Ctrl-C: the current step is aborted, the rest skipped. */
  signal: AbortSignal;
  workbench?: string;
  /** RunOptions.afterStep, bound to the case's workbench. */
  afterStep?(info: CaseInfo, result: StepResult): Promise<void>;
}

/**
 * Runs the steps of one case in order (the caller reports the case's end: it may run again
 * elsewhere when its workbench died). A step that fails or errs ends the case: the steps
 * after it are skipped with the reason; a soft check that fails is recorded and the case goes
 * on. Every attempt is recorded.
 */
export async function runCase(
  info: CaseInfo,
  steps: readonly RunnableStep[],
  options: CaseRunOptions,
): Promise<CaseResult> {
  const started = performance.now();
  const results: StepResult[] = [];
  let stopReason: string | undefined;
  const signals = new AttemptSignals(options.signal);

  try {
    for (const step of steps) {
      if (stopReason === undefined && options.signal.aborted) stopReason = 'the run was interrupted';
      if (stopReason !== undefined) {
        const skipped = stepResultOf(step, 'skipped');
        skipped.skippedReason = stopReason;
        results.push(skipped);
        options.reporter.onStepEnd?.(info, skipped);
        continue;
      }
      options.reporter.onStepStart?.(info, step);
      const result = await runStep(info, step, options, signals);
      if (options.afterStep && !options.signal.aborted) await options.afterStep(info, result).catch(() => undefined);
      results.push(result);
      options.reporter.onStepEnd?.(info, result);
      if (result.status === 'error' && options.signal.aborted) stopReason = 'the run was interrupted';
      else if ((result.status === 'failed' && !step.soft) || result.status === 'error') {
        stopReason = `step ${step.index} (${step.kind}, line ${step.span.line}) ${result.status === 'failed' ? 'failed' : 'could not run'}`;
      }
    }
  } finally {
    signals.dispose();
  }

  const result: CaseResult = {
    id: info.id,
    name: info.name,
    playbook: info.playbook,
    ...(info.study ? { study: info.study } : {}),
    status: caseStatus(results),
    durationMs: Math.round(performance.now() - started),
    ...(options.workbench ? { workbench: options.workbench } : {}),
    steps: results,
  };
  return result;
}

async function runStep(
  info: CaseInfo,
  step: RunnableStep,
  options: CaseRunOptions,
  signals: AttemptSignals,
): Promise<StepResult> {
  const result = stepResultOf(step, 'passed');
  const started = performance.now();
  const notice = (message: string): void => {
    result.notices.push(message);
    options.reporter.onNotice?.(message);
  };
  let attemptStart = 0;
  let attemptAt = '';
  try {
    const outcome = await withRetry(
      options.policy,
      {
        classify: options.classify,
        signal: options.signal,
        onRetry: (n, error, delayMs) => {
          const attempt: Attempt = {
            n,
            startedAt: attemptAt,
            durationMs: Math.round(performance.now() - attemptStart),
            error,
          };
          result.attempts.push(attempt);
          options.reporter.onStepRetry?.(info, step, attempt, delayMs);
        },
      },
      (n) => {
        attemptStart = performance.now();
        attemptAt = new Date().toISOString();
        return signals.run(options.timeoutMs, (signal) => step.run(options.context(step, n, signal, notice)));
      },
    );
    result.attempts.push({
      n: result.attempts.length + 1,
      startedAt: attemptAt,
      durationMs: Math.round(performance.now() - attemptStart),
    });
    result.status = outcome.status;
    if (outcome.resolvedArgs !== undefined) result.resolvedArgs = outcome.resolvedArgs;
    if (outcome.artefacts) result.artefacts.push(...outcome.artefacts);
    if (outcome.image) result.image = outcome.image;
    if (outcome.failure) result.error = outcome.failure;
  } catch (err) {
    const failure: ErrorInfo = options.classify(err).info;
    result.attempts.push({
      n: result.attempts.length + 1,
      startedAt: attemptAt,
      durationMs: Math.round(performance.now() - attemptStart),
      error: failure,
    });
    result.status = 'error';
    result.error = failure;
  }
  result.durationMs = Math.round(performance.now() - started);
  return result;
}

/** The step timeout: the attempt's signal is aborted and the attempt rejects with a timeout. */
export class StepTimeoutError extends Error {
  readonly code = 'STEP_TIMEOUT';
  constructor(readonly timeoutMs: number) {
    super(`the step did not finish within ${timeoutMs} ms (raise it with --timeout)`);
    this.name = 'StepTimeoutError';
  }
}

/**
 * Gives each attempt an abort signal, aborted by Ctrl-C (the run's signal) or at the attempt's
 * deadline. Steps are far shorter than their timeout, so one timer serves the whole case: when
 * it fires before the current deadline it is armed again for the rest, and an attempt costs no
 * timer of its own. The controller is reused until something aborts it.
 */
class AttemptSignals {
  private controller = new AbortController();
  private pending:
    { deadline: number; ms: number; reject: (err: unknown) => void; controller: AbortController } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.controller.abort(this.outer.reason);

  constructor(private readonly outer: AbortSignal) {
    outer.addEventListener('abort', this.onAbort, { once: true });
    if (outer.aborted) this.onAbort();
  }

  /** Runs `fn`; rejects with StepTimeoutError after `ms` even when `fn` ignores its signal. */
  run<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.controller.signal.aborted && !this.outer.aborted) this.controller = new AbortController();
    const controller = this.controller;
    return new Promise<T>((resolve, reject) => {
      const attempt = { deadline: performance.now() + ms, ms, reject, controller };
      this.pending = attempt;
      this.timer ??= setTimeout(this.check, ms);
      const settle = (): void => {
        if (this.pending === attempt) this.pending = undefined;
      };
      fn(controller.signal).then(
        (value) => {
          settle();
          resolve(value);
        },
        (err: unknown) => {
          settle();
          reject(err);
        },
      );
    });
  }

  private readonly check = (): void => {
    this.timer = undefined;
    const attempt = this.pending;
    if (!attempt) return;
    const left = attempt.deadline - performance.now();
    if (left > 0) {
      this.timer = setTimeout(this.check, left);
      return;
    }
    this.pending = undefined;
    const err = new StepTimeoutError(attempt.ms);
    // Settle first: a step that returns on abort must not win.
    attempt.reject(err);
    attempt.controller.abort(err);
  };

  dispose(): void {
    clearTimeout(this.timer);
    this.outer.removeEventListener('abort', this.onAbort);
  }
}
