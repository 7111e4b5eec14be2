import { WorkbenchApiError, type CallOptions } from '../client/index.js';
import type { NodeInfo } from '../api/wire.js';
import { MARKER_PROPERTY } from '../steps/run-context.js';
import { classify } from './classify.js';
import { withRetry } from './retry.js';
import { type ForeignNodeMode, type RunContext } from './run-context.js';
import type { WorkbenchSlot } from './workbenches.js';

/** How many names a notice lists before it says "and N more". */
const NAMES_SHOWN = 8;

/**
 * A known scene at the start of a run on a workbench given by URL: the nodes earlier wbplay
 * runs left there (they carry MARKER_PROPERTY) are removed, under the retry policy as the
 * clean-up between studies is; the nodes left are a person's, named in a notice and treated as
 * `mode` says. Workbenches the run started itself are empty and are not asked.
 */
export async function prepareScenes(run: RunContext, mode: ForeignNodeMode): Promise<void> {
  const given = run.slots.filter((s) => s.given && !s.dead);
  const failures = await Promise.all(
    given.map((slot) =>
      prepareScene(run, slot, mode).then(
        () => undefined,
        (err: unknown) => err,
      ),
    ),
  );
  given.forEach((slot, i) => {
    const err = failures[i];
    if (err === undefined) return;
    // As a workbench that cannot be reached: it leaves the pool, the others run the cases.
    const info = classify(err).info;
    slot.dead = true;
    run.notice(
      `workbench ${slot.label} ${info.code === 'TIMEOUT' ? 'stopped answering' : 'could not be cleared'} while its scene was prepared (${info.code}: ${info.message}); it leaves the pool before any case ran`,
    );
  });
  const firstFailure = failures.find((f) => f !== undefined);
  if (firstFailure !== undefined && run.slots.every((s) => s.dead)) throw firstFailure;
}

async function prepareScene(run: RunContext, slot: WorkbenchSlot, mode: ForeignNodeMode): Promise<void> {
  const retried = <T>(call: () => Promise<T>): Promise<T> =>
    withRetry(run.retry, { classify, signal: run.signal }, call);
  const signal = run.signal;
  // As at the start of a run, a question is not given the whole of a step's time.
  const timeoutMs = Math.min(slot.client.timeoutMs, run.timeoutMs);
  const left = await retried(() => slot.client.nodes.carrying(MARKER_PROPERTY, { signal, timeoutMs }));
  const kept: NodeInfo[] = [];
  for (const node of deepestFirst(left)) {
    const removed = await retried(() => removeAlone(slot, node.uid, { signal, timeoutMs }));
    if (!removed) kept.push(node);
  }
  if (left.length > 0) {
    run.notice(
      `removed ${left.length - kept.length} node${left.length - kept.length === 1 ? '' : 's'} an earlier wbplay run left on ${slot.label}` +
        (kept.length > 0 ? `; kept ${names(kept)}: they hold nodes wbplay did not make` : ''),
    );
  }
  const marked = new Set(kept.map((n) => n.uid));
  const foreign = (await retried(() => slot.client.nodes.list({}, { signal, timeoutMs }))).filter(
    (n) => !marked.has(n.uid),
  );
  if (foreign.length === 0) return;
  const what = `${foreign.length} node${foreign.length === 1 ? '' : 's'} wbplay did not make (${names(foreign)})`;
  switch (mode) {
    case 'keep':
      run.notice(
        `${slot.label} holds ${what}: they can appear in captures (--foreign-nodes hide hides them for the run)`,
      );
      return;
    case 'hide': {
      const hidden = await hideAll(slot, foreign, retried, { signal, timeoutMs });
      slot.hidden = hidden;
      run.notice(
        `${slot.label} holds ${what}, which could appear in captures: ${hidden.length} shown ${hidden.length === 1 ? 'was' : 'were'} hidden for the run and ${hidden.length === 1 ? 'is' : 'are'} shown again at its end (--foreign-nodes keep leaves them, remove removes them)`,
      );
      return;
    }
    case 'remove':
      for (const node of foreign.filter((n) => n.parent_uid === null || !foreign.some((p) => p.uid === n.parent_uid)))
        await retried(() => removeTree(slot, node.uid, { signal, timeoutMs }));
      run.notice(`removed ${what} from ${slot.label} (--foreign-nodes remove)`);
      return;
  }
}

/**
 * Shows again what `prepareScenes` hid, once the run is over (also an interrupted one: its
 * own signal is not used). A node the playbook removed meanwhile is gone and stays gone.
 */
export async function restoreScenes(run: RunContext): Promise<void> {
  await Promise.all(
    run.slots.map(async (slot) => {
      const hidden = slot.hidden ?? [];
      slot.hidden = undefined;
      const failed: string[] = [];
      for (const uid of hidden) {
        await withRetry(run.retry, { classify }, () =>
          slot.client.properties.patch(uid, { visible: true }, { scope: 'node' }),
        ).catch((err: unknown) => {
          if (!(err instanceof WorkbenchApiError && err.status === 404)) failed.push(uid);
        });
      }
      if (failed.length > 0)
        run.notice(
          `could not show again ${failed.length} node${failed.length === 1 ? '' : 's'} hidden on ${slot.label} for the run (${failed.join(', ')}); set their visibility in the workbench`,
        );
    }),
  );
}

/** Hides the nodes among `nodes` that are shown; returns their UIDs. */
async function hideAll(
  slot: WorkbenchSlot,
  nodes: readonly NodeInfo[],
  retried: <T>(call: () => Promise<T>) => Promise<T>,
  call: CallOptions,
): Promise<string[]> {
  const hidden: string[] = [];
  for (const node of nodes) {
    const visible = await retried(() =>
      slot.client.properties.get(node.uid, 'visible', { scope: 'node', ...call }).catch((err: unknown) => {
        // A node without the property is drawn: MITK's default is visible.
        if (err instanceof WorkbenchApiError && err.status === 404) return true;
        throw err;
      }),
    );
    if (visible === false) continue;
    await retried(() => slot.client.properties.patch(node.uid, { visible: false }, { scope: 'node', ...call }));
    hidden.push(node.uid);
  }
  return hidden;
}

/** Removes a node unless it has children (someone else's, then); true when it is gone. */
async function removeAlone(slot: WorkbenchSlot, uid: string, call: CallOptions): Promise<boolean> {
  try {
    await slot.client.nodes.remove(uid, call);
    return true;
  } catch (err) {
    if (err instanceof WorkbenchApiError && err.status === 404) return true;
    if (err instanceof WorkbenchApiError && err.code === 'NODE_HAS_CHILDREN') return false;
    throw err;
  }
}

async function removeTree(slot: WorkbenchSlot, uid: string, call: CallOptions): Promise<void> {
  try {
    await slot.client.nodes.remove(uid, { recursive: true, ...call });
  } catch (err) {
    if (!(err instanceof WorkbenchApiError && err.status === 404)) throw err;
  }
}

/** Children before their parents, so each removal finds its node without children of wbplay's. */
function deepestFirst(nodes: readonly NodeInfo[]): NodeInfo[] {
  const depth = (n: NodeInfo): number => n.path.split('/').length;
  return [...nodes].sort((a, b) => depth(b) - depth(a));
}

function names(nodes: readonly NodeInfo[]): string {
  const shown = nodes.slice(0, NAMES_SHOWN).map((n) => n.name || n.uid);
  return nodes.length > NAMES_SHOWN ? `${shown.join(', ')} and ${nodes.length - NAMES_SHOWN} more` : shown.join(', ');
}
