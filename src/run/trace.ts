import type { ExchangeEvent } from '../client/index.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { classify } from './classify.js';

/**
 * One case's HTTP exchanges, for `--trace`: method, path, the names of query parameters (their
 * values may hold file paths or names a user would not publish), status, duration, the step and
 * attempt that made it, and how a failure was classified. Never a header, a body or a token.
 */
export class CaseTrace {
  private step: number | null = null;
  private attempt: number | null = null;
  private readonly lines: string[] = [];

  /** Exchanges from now on belong to this attempt of this step (null: between steps, e.g. clean-up). */
  at(step: number | null, attempt: number | null): void {
    this.step = step;
    this.attempt = attempt;
  }

  readonly record = (event: ExchangeEvent): void => {
    const query = event.query === '' ? [] : [...new URLSearchParams(event.query).keys()];
    const failure = event.error ? classify(event.error) : undefined;
    this.lines.push(
      JSON.stringify({
        step: this.step,
        attempt: this.attempt,
        method: event.method,
        path: event.path,
        ...(query.length > 0 ? { query } : {}),
        status: event.status,
        duration_ms: Math.round(event.durationMs * 10) / 10,
        outcome: failure ? failure.info.code : 'ok',
        ...(failure ? { retried: failure.retryable } : {}),
      }),
    );
  };

  /** JSON lines, written atomically. */
  write(path: string): Promise<void> {
    return writeFileAtomic(path, this.lines.length > 0 ? `${this.lines.join('\n')}\n` : '');
  }
}
