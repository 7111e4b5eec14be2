/** Runs `work` over `items`, a few at a time: file reads overlap, memory stays bounded. */
export async function inParallel<T>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
  limit = 8,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
