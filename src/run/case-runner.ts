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
import { isoTime } from '../result/iso-time.js';
import { Backlog } from './backlog.js';
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
  /**
   * Once the files a step wrote in the background are on disk: why one is not (the step then
   * errs with that), or undefined. No promise for a step that wrote nothing. Without it a
   * step's files count as written when it ends.
   */
  written?(step: number): Promise<ErrorInfo | undefined> | undefined;
  reporter: Reporter;
  timeoutMs: number;
  /** Aborted by Ctrl-C: the current step is aborted, the rest skipped. */
  signal: AbortSignal;
  workbench?: string;
  /** RunOptions.afterStep, bound to the case's workbench. */
  afterStep?(info: CaseInfo, result: StepResult): Promise<void>;
}

/**
 * A case whose steps have run. Its result is final, and every step's end reported, once
 * `settled` resolves: a step whose files were still being written is reported then, as passed
 * only if they are on disk. The workbench is free for the next case before that.
 */
export interface CaseRun {
  result: CaseResult;
  settled: Promise<void>;
}

const INTERRUPTED = 'the run was interrupted';

/**
 * Steps of a case whose files may still be on their way to disk while the next step runs. A
 * capture is held in memory until written; a 4K screenshot is tens of MB.
 */
export const STEPS_WRITING = 4;

/**
 * Runs the steps of one case in order (the caller reports the case's end: it may run again
 * elsewhere when its workbench died). A step that fails or errs ends the case: the steps
 * after it are skipped with the reason; a soft check that fails is recorded and the case goes
 * on. A step whose file could not be written errs when that is known, and the steps not yet
 * started are skipped. Every attempt is recorded. A case cut short by a signal is skipped.
 */
export async function runCase(
  info: CaseInfo,
  steps: readonly RunnableStep[],
  options: CaseRunOptions,
): Promise<CaseRun> {
  const started = performance.now();
  const results: StepResult[] = [];
  let stopReason: string | undefined;
  const events = new StepEvents(options.reporter, info);
  const signals = new AttemptSignals(options.signal);
  const writing = new Backlog(STEPS_WRITING);

  try {
    for (const step of steps) {
      if (stopReason === undefined && writing.full) await writing.room();
      if (stopReason === undefined && options.signal.aborted) stopReason = INTERRUPTED;
      stopReason ??= events.writeFailure;
      if (stopReason !== undefined) {
        const skipped = stepResultOf(step, 'skipped');
        skipped.skippedReason = stopReason;
        results.push(skipped);
        events.end(skipped);
        continue;
      }
      events.start(step);
      const result = await runStep(info, step, options, signals, events);
      if (result.status === 'error' && options.signal.aborted) {
        // Stopped, not broken: the step did not finish, and nothing is wrong with the study.
        result.status = 'skipped';
        result.skippedReason = 'the run was interrupted during this step';
        delete result.error;
        stopReason = INTERRUPTED;
      }
      if (options.afterStep && !options.signal.aborted) await options.afterStep(info, result).catch(() => undefined);
      results.push(result);
      const written =
        result.status === 'passed' || result.status === 'failed' ? options.written?.(step.index) : undefined;
      if (written) writing.add(written);
      events.end(result, written);
      if (stopReason !== undefined) continue;
      if ((result.status === 'failed' && !step.soft) || result.status === 'error') {
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
  const settled = events.done.then(() => {
    // A case cut short by a signal did not pass, whatever its first steps did.
    result.status = stopReason === INTERRUPTED ? 'skipped' : caseStatus(results);
  });
  return { result, settled };
}

/**
 * The reporter's view of one case's steps, in order. A step's end waits for its files; what
 * comes after it waits too, so a reporter never sees a later step before an earlier one ends.
 * With nothing to wait for, an event is told at once: most steps write no file, and a chain of
 * promises per event cost the runner a measurable part of a cheap step.
 */
class StepEvents {
  /** The events still waiting behind a step's files; undefined when none are. */
  private chain: Promise<void> | undefined;
  /** Set once a step's file turned out not to be written: why the steps not yet started are skipped. */
  writeFailure: string | undefined;

  constructor(
    private readonly reporter: Reporter,
    private readonly info: CaseInfo,
  ) {}

  get done(): Promise<void> {
    return this.chain ?? Promise.resolve();
  }

  start(step: StepInfo): void {
    this.then(() => this.reporter.onStepStart?.(this.info, step));
  }

  retry(step: StepInfo, attempt: Attempt, delayMs: number): void {
    this.then(() => this.reporter.onStepRetry?.(this.info, step, attempt, delayMs));
  }

  end(result: StepResult, written?: Promise<ErrorInfo | undefined>): void {
    if (written === undefined) {
      this.then(() => this.reporter.onStepEnd?.(this.info, result));
      return;
    }
    this.then(async () => {
      const failure = written && (await written);
      if (failure) {
        result.status = 'error';
        result.error = failure;
        this.writeFailure ??= `step ${result.index} (${result.kind}, line ${result.span.line}) could not write its output`;
      }
      this.reporter.onStepEnd?.(this.info, result);
    });
  }

  private then(event: () => unknown): void {
    // A reporter that throws is the fan-out's to isolate; here it must not stop the events after it.
    if (this.chain !== undefined) return this.wait(this.chain.then(event));
    let told: unknown;
    try {
      told = event();
    } catch {
      return;
    }
    if (told instanceof Promise) this.wait(told);
  }

  /** Later events wait for `pending`; once it settles with nothing after it, they are told at once again. */
  private wait(pending: Promise<unknown>): void {
    const link: Promise<void> = pending.then(
      () => this.idle(link),
      () => this.idle(link),
    );
    this.chain = link;
  }

  private idle(link: Promise<void>): void {
    if (this.chain === link) this.chain = undefined;
  }
}

async function runStep(
  info: CaseInfo,
  step: RunnableStep,
  options: CaseRunOptions,
  signals: AttemptSignals,
  events: StepEvents,
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
          events.retry(step, attempt, delayMs);
        },
      },
      (n) => {
        attemptStart = performance.now();
        attemptAt = isoTime();
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
