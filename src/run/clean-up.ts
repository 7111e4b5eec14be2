import { WorkbenchApiError } from '../client/index.js';
import type { ErrorInfo } from '../result/result.js';
import { classify } from './classify.js';
import { withRetry } from './retry.js';
import type { RunContext } from './run-context.js';
import type { WorkbenchSlot } from './workbenches.js';

/**
 * Clears the workbench of what the last case on it created, so the next study starts on a
 * clean scene. Every removal runs under the run's retry policy; a node already gone counts as
 * removed (also a DELETE whose answer was lost and that answers 404 when tried again). Returns
 * what went wrong when the scene could not be cleared, with the case that left the nodes.
 */
export async function clearLeftovers(
  run: RunContext,
  slot: WorkbenchSlot,
): Promise<{ owner: string; error: ErrorInfo } | undefined> {
  const leftovers = slot.leftovers;
  if (!leftovers) return undefined;
  try {
    // In the order they were made, each with what lies under it: a study's segmentation loaded
    // under its image goes with the image, one exchange instead of two. A node the answers
    // name as removed is not asked for again; one moved elsewhere meanwhile is still removed
    // on its own, and a workbench that does not name what it removed is asked for each node.
    const gone = new Set<string>();
    for (const uid of leftovers.uids) {
      if (gone.has(uid)) continue;
      const removed = await withRetry(run.retry, { classify, signal: run.signal }, () =>
        removeNode(slot, uid, run.signal),
      );
      for (const child of removed) gone.add(child);
    }
    slot.leftovers = undefined;
    return undefined;
  } catch (err) {
    return { owner: leftovers.owner, error: classify(err).info };
  }
}

/** The nodes removed under `uid` as the workbench names them (none when it was already gone). */
async function removeNode(slot: WorkbenchSlot, uid: string, signal: AbortSignal): Promise<string[]> {
  try {
    return (await slot.client.nodes.remove(uid, { recursive: true, signal })).deleted_children;
  } catch (err) {
    if (!(err instanceof WorkbenchApiError && err.status === 404)) throw err;
    return [];
  }
}

/** Whether the workbench still answers its health probe; transient trouble is retried first. */
export async function answers(run: RunContext, slot: WorkbenchSlot, timeoutMs: number): Promise<boolean> {
  try {
    await withRetry(run.retry, { classify, signal: run.signal }, () =>
      slot.client.health({ timeoutMs, signal: run.signal }),
    );
    return true;
  } catch {
    return false;
  }
}
