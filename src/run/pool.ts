/**
 * Runs items on a set of slots (workbench sessions), one item per slot at a time. A slot
 * whose workbench dies is taken out and the item it was running gets one more try on
 * another slot; an item never runs on two slots at once.
 */
export interface PoolSlot {
  readonly id: number;
  readonly label: string;
}

export interface PoolOptions<I, R, S extends PoolSlot> {
  run(item: I, slot: S): Promise<R>;
  /** Asked after every item: is the slot's workbench still there? */
  slotAlive(slot: S, result: R): Promise<boolean>;
  /** The result for an item that could not run at all (no slot left, or died twice). */
  abandoned(item: I, reason: string): R;
  /** Stop taking new items (fail-fast, Ctrl-C). */
  shouldStop?(): boolean;
  onSlotLost?(slot: S, item: I, retried: boolean): void;
  /**
   * Called once per item with its final result (not for a run that is retried elsewhere). The
   * pool keeps no results: a run of many items holds each only until its owner took it.
   */
  onResult(item: I, result: R, index: number): void;
}

export async function runPool<I, R, S extends PoolSlot>(
  items: readonly I[],
  slots: readonly S[],
  options: PoolOptions<I, R, S>,
): Promise<void> {
  const queue: Array<{ index: number; tries: number }> = items.map((_, index) => ({ index, tries: 0 }));
  let live = slots.length;
  let running = 0;
  // An idle worker waits while others still run: an item they lose with their workbench
  // comes back to the queue and must find a worker that is still there.
  let wake: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => (wake = resolve));
  const notify = (): void => {
    wake();
    changed = new Promise<void>((resolve) => (wake = resolve));
  };

  const worker = async (slot: S): Promise<void> => {
    for (;;) {
      if (options.shouldStop?.()) return;
      const next = queue.shift();
      if (!next) {
        if (running === 0) return;
        await changed;
        continue;
      }
      running++;
      const item = items[next.index] as I;
      const result = await options.run(item, slot);
      const alive = await options.slotAlive(slot, result);
      running--;
      if (alive) {
        options.onResult(item, result, next.index);
        notify();
        continue;
      }
      live--;
      const retry = next.tries === 0 && live > 0;
      options.onSlotLost?.(slot, item, retry);
      if (retry) queue.unshift({ index: next.index, tries: next.tries + 1 });
      else options.onResult(item, result, next.index);
      notify();
      return;
    }
  };

  await Promise.all(slots.map((slot) => worker(slot)));
  // Whatever is still queued found no slot to run on.
  for (const rest of queue) {
    if (options.shouldStop?.()) continue;
    const item = items[rest.index] as I;
    const result = options.abandoned(
      item,
      'no workbench left: every workbench of the pool stopped answering or could not be cleared',
    );
    options.onResult(item, result, rest.index);
  }
}
