/**
 * Work that finishes behind the caller (files still being written while the workbench takes
 * the next request), at most `limit` pieces at once. Past that, `room()` makes the caller wait:
 * a disk slower than the workbench then holds the run back instead of letting captures pile
 * up in memory.
 */
export class Backlog {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`a backlog holds at least one piece of work, got ${limit}`);
  }

  get size(): number {
    return this.pending.size;
  }

  /** No room for more until one piece settles. */
  get full(): boolean {
    return this.pending.size >= this.limit;
  }

  /** Holds `work` until it settles, whether it resolves or rejects (its owner handles that). */
  add(work: Promise<unknown>): void {
    const held: Promise<void> = work.then(
      () => this.drop(held),
      () => this.drop(held),
    );
    this.pending.add(held);
  }

  /** Resolves once fewer than `limit` pieces are pending. */
  async room(): Promise<void> {
    while (this.full) await Promise.race(this.pending);
  }

  private drop(held: Promise<void>): void {
    this.pending.delete(held);
  }
}
