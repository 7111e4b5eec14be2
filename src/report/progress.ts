import type { CaseResult } from '../result/result.js';
import { formatDuration } from './report-text.js';

/**
 * The overall progress of a cohort: how many cases are done and how they ended, the rate and
 * the time left. Pure arithmetic on the case results and a clock, so it is tested on its own.
 */
function ranNow(result: CaseResult): boolean {
  return result.status !== 'skipped' && result.upToDate === undefined;
}

export class CohortProgress {
  private readonly finished = new Map<string, CaseResult>();
  /** Cases that did work; up-to-date cases finish at once and would make the rate meaningless. */
  private ran = 0;

  constructor(
    readonly total: number,
    private readonly startedAt: number,
  ) {}

  /** Records a finished case; a case finished twice (retried on another workbench) counts once, with its last result. */
  finish(result: CaseResult): void {
    const key = `${result.playbook}\u0000${result.id}`;
    const before = this.finished.get(key);
    if (before && ranNow(before)) this.ran--;
    this.finished.set(key, result);
    if (ranNow(result)) this.ran++;
  }

  get done(): number {
    return this.finished.size;
  }

  count(status: CaseResult['status']): number {
    let n = 0;
    for (const r of this.finished.values()) if (r.status === status) n++;
    return n;
  }

  /** Cases that ran per minute of wall time; undefined until one ran. */
  ratePerMinute(now: number): number | undefined {
    const minutes = (now - this.startedAt) / 60_000;
    if (this.ran === 0 || minutes <= 0) return undefined;
    return this.ran / minutes;
  }

  /** Time left at the current rate; undefined while the rate is unknown. */
  etaMs(now: number): number | undefined {
    const rate = this.ratePerMinute(now);
    if (rate === undefined) return undefined;
    return ((this.total - this.done) / rate) * 60_000;
  }

  /** `12/24 done · 1 failed · 0 errors · 30.5/min · ETA 24 s`. */
  describe(now: number): string {
    const parts = [
      `${this.done}/${this.total} done`,
      `${this.count('failed')} failed`,
      `${this.count('error')} error${this.count('error') === 1 ? '' : 's'}`,
    ];
    const skipped = this.count('skipped');
    if (skipped > 0) parts.push(`${skipped} skipped`);
    const rate = this.ratePerMinute(now);
    if (rate !== undefined) parts.push(`${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/min`);
    const eta = this.etaMs(now);
    if (this.done < this.total) parts.push(`ETA ${eta === undefined ? '…' : formatDuration(eta)}`);
    else parts.push(`took ${formatDuration(now - this.startedAt)}`);
    return parts.join(' · ');
  }
}
