import type { Attempt, CaseInfo, CaseResult, RunResult, StepInfo, StepResult } from '../result/result.js';
import type { Reporter, RunStartInfo } from '../result/reporter.js';

/** A reporter that threw: it was switched off at that event and got no further events. */
export interface ReporterFailure {
  reporter: string;
  event: keyof Reporter;
  message: string;
}

type EventName = Exclude<keyof Reporter, 'name'>;

/**
 * Sends every event to every reporter. A reporter that throws, or whose promise rejects, is
 * switched off and recorded, and the run and the other reporters go on: a broken progress
 * display must never cost the JSON report or the run itself.
 */
export class ReporterFanout implements Reporter {
  readonly name = 'fan-out';
  private readonly entries: Array<{ name: string; reporter: Reporter; live: boolean }>;
  private readonly recorded: ReporterFailure[] = [];
  /** Promises returned by events the runner does not await; settled before the run ends. */
  private readonly pending = new Set<Promise<void>>();

  constructor(reporters: readonly Reporter[]) {
    this.entries = reporters.map((reporter, i) => ({ name: reporterName(reporter, i), reporter, live: true }));
  }

  /** Failures in the order they happened, for the CLI to print once the run is over. */
  get failures(): readonly ReporterFailure[] {
    return this.recorded;
  }

  /** The reporters still receiving events. */
  get active(): string[] {
    return this.entries.filter((e) => e.live).map((e) => e.name);
  }

  async onRunStart(info: RunStartInfo): Promise<void> {
    await Promise.all(this.dispatch('onRunStart', (r) => r.onRunStart?.(info)));
  }

  onCaseStart(c: CaseInfo, worker: number): void {
    this.track(this.dispatch('onCaseStart', (r) => r.onCaseStart?.(c, worker)));
  }

  onStepStart(c: CaseInfo, step: StepInfo): void {
    this.track(this.dispatch('onStepStart', (r) => r.onStepStart?.(c, step)));
  }

  onStepRetry(c: CaseInfo, step: StepInfo, attempt: Attempt, delayMs: number): void {
    this.track(this.dispatch('onStepRetry', (r) => r.onStepRetry?.(c, step, attempt, delayMs)));
  }

  onStepEnd(c: CaseInfo, result: StepResult): void {
    this.track(this.dispatch('onStepEnd', (r) => r.onStepEnd?.(c, result)));
  }

  onCaseEnd(result: CaseResult): void {
    this.track(this.dispatch('onCaseEnd', (r) => r.onCaseEnd?.(result)));
  }

  onNotice(message: string): void {
    this.track(this.dispatch('onNotice', (r) => r.onNotice?.(message)));
  }

  async onRunEnd(result: RunResult): Promise<void> {
    // Work started by earlier events finishes before the reporters are told the run is over.
    await Promise.all([...this.pending]);
    await Promise.all(this.dispatch('onRunEnd', (r) => r.onRunEnd?.(result)));
  }

  /**
   * Calls one event on every live reporter. Returns one promise per reporter that answered
   * asynchronously; each promise resolves (never rejects) once its reporter settled.
   */
  private dispatch(event: EventName, call: (r: Reporter) => unknown): Promise<void>[] {
    const waits: Promise<void>[] = [];
    for (const entry of this.entries) {
      if (!entry.live) continue;
      let answer: unknown;
      try {
        answer = call(entry.reporter);
      } catch (error) {
        this.disable(entry, event, error);
        continue;
      }
      if (isThenable(answer)) {
        waits.push(
          Promise.resolve(answer).then(
            () => undefined,
            (error: unknown) => this.disable(entry, event, error),
          ),
        );
      }
    }
    return waits;
  }

  private track(waits: Promise<void>[]): void {
    for (const wait of waits) {
      this.pending.add(wait);
      void wait.finally(() => this.pending.delete(wait));
    }
  }

  private disable(entry: { name: string; live: boolean }, event: EventName, error: unknown): void {
    if (!entry.live) return;
    entry.live = false;
    this.recorded.push({ reporter: entry.name, event, message: errorMessage(error) });
  }
}

function reporterName(reporter: Reporter, index: number): string {
  if (reporter.name) return reporter.name;
  const ctor = (reporter as { constructor?: { name?: string } }).constructor?.name;
  return ctor && ctor !== 'Object' ? ctor : `reporter ${index + 1}`;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
