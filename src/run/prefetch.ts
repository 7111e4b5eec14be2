import type { CachedSeries } from '../dicomweb/types.js';
import type { Archives } from './archives.js';
import type { RunItem } from './run-item.js';

export interface PrefetchOptions {
  /** Cases ahead of the one starting whose series are retrieved meanwhile (0: none). */
  ahead: number;
  /** Bytes of retrieved series still waiting for their case beyond which nothing more is fetched ahead. */
  budgetBytes: number;
  /** Cases not to fetch ahead: those the journal may hold as done, which may not run at all. */
  skip?(item: RunItem): boolean;
}

export const DEFAULT_PREFETCH: PrefetchOptions = { ahead: 2, budgetBytes: 4096 * 1024 * 1024 };

/**
 * The series of a cohort's cases from an archive, fetched ahead: while one case runs on the
 * workbench, the next cases' series download, one after another (so they do not slow down
 * the series a case is waiting for), so a cohort from an archive runs at the workbench's pace.
 */
export class Prefetch {
  private readonly position = new Map<RunItem, number>();
  private readonly started = new Map<RunItem, Promise<CachedSeries[]>>();
  /** Bytes fetched ahead whose case has not started yet. */
  private waiting = new Map<RunItem, number>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly archives: Archives,
    private readonly items: readonly RunItem[],
    private readonly options: PrefetchOptions = DEFAULT_PREFETCH,
  ) {
    items.forEach((item, i) => this.position.set(item, i));
  }

  /** The case's series, complete in the cache; the next cases' retrievals start behind it. */
  async ready(item: RunItem): Promise<CachedSeries[]> {
    const ahead = this.started.get(this.key(item));
    this.waiting.delete(this.key(item));
    const own = ahead ? ahead.catch(() => this.fetch(item)) : this.fetch(item);
    this.started.set(this.key(item), own);
    try {
      return await own;
    } finally {
      this.started.delete(this.key(item));
      this.fetchAhead(this.position.get(this.key(item)) ?? -1);
    }
  }

  /** Items are matched by position: a case compiled for its run is a copy of the item queued. */
  private key(item: RunItem): RunItem {
    if (this.position.has(item)) return item;
    return this.items.find((i) => i.number === item.number && i.plan === item.plan) ?? item;
  }

  private fetch(item: RunItem): Promise<CachedSeries[]> {
    return Promise.all((item.case.retrieve ?? []).map((ref) => this.archives.retrieve(ref)));
  }

  /**
   * Fetches the cases after `from` one by one, behind any fetch still under way. The budget is
   * checked as each starts, against what was fetched ahead and is still waiting for its case.
   */
  private fetchAhead(from: number): void {
    this.chain = this.chain.then(async () => {
      for (let i = from + 1; i <= from + this.options.ahead && i < this.items.length; i++) {
        const next = this.items[i]!;
        if (!next.case.retrieve || this.started.has(next) || this.options.skip?.(next)) continue;
        if ([...this.waiting.values()].reduce((a, b) => a + b, 0) >= this.options.budgetBytes) return;
        const fetched = this.fetch(next);
        this.started.set(next, fetched);
        try {
          const series = await fetched;
          // Its case may have started meanwhile and taken it: only what still waits counts.
          if (this.started.get(next) === fetched)
            this.waiting.set(
              next,
              series.reduce((n, s) => n + s.bytes, 0),
            );
        } catch {
          // Its case retrieves it again when its turn comes, and reports what goes wrong then.
        }
      }
    });
  }
}
