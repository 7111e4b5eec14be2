import { connect, launchWorkbench, type ServerInfo, type WorkbenchClient } from '../client/index.js';
import type { PoolSlot } from './pool.js';

/** Where a run sends its cases: given URLs, launched workbenches, or embedded reference workbenches. */
export type WorkbenchSource =
  | { kind: 'urls'; urls: string[]; token?: string; allowInsecureToken?: boolean }
  | { kind: 'launch'; count: number; executable?: string }
  | { kind: 'embedded'; count: number };

/** One workbench session of the run; a case runs on one slot at a time. */
export interface WorkbenchSlot extends PoolSlot {
  readonly client: WorkbenchClient;
  /** Filled on first use, for provenance. */
  info?: ServerInfo;
  /** Nodes the last case on this slot created, removed before the next case starts. */
  leftovers: string[];
  /** Set when the workbench is known to be gone (an embedded worker that exited). */
  dead: boolean;
  stop(): Promise<void>;
}

/**
 * Starts or connects the workbenches of a run. One embedded workbench runs in this thread
 * (no start-up cost); several run in worker threads so each renders on its own core.
 * Anything started here is stopped by the slot's `stop`, also when a later start fails.
 */
export async function openWorkbenches(source: WorkbenchSource): Promise<WorkbenchSlot[]> {
  const started: WorkbenchSlot[] = [];
  try {
    if (source.kind === 'urls') {
      for (const url of source.urls) {
        const client = connect({ url, ...(source.token !== undefined ? { token: source.token } : {}), ...(source.allowInsecureToken ? { allowInsecureToken: true } : {}) });
        started.push(slot(started.length, redact(url), client, () => client.close()));
      }
    } else if (source.kind === 'launch') {
      for (let i = 0; i < source.count; i++) {
        const launched = await launchWorkbench({ ...(source.executable !== undefined ? { executable: source.executable } : {}) });
        started.push(slot(i, `launched ${launched.url}`, launched.client, () => launched.stop()));
      }
    } else if (source.count === 1) {
      const { startReferenceWorkbench } = await import('../sim/server.js');
      const server = await startReferenceWorkbench();
      const client = connect({ url: server.url });
      started.push(slot(0, 'embedded', client, async () => {
        await client.close();
        await server.stop();
      }));
    } else {
      const { startEmbeddedInWorker } = await import('./embedded.js');
      const servers = await Promise.all(Array.from({ length: source.count }, () => startEmbeddedInWorker()));
      servers.forEach((server, i) => {
        const client = connect({ url: server.url });
        const s = slot(i, `embedded #${i + 1}`, client, async () => {
          await client.close();
          await server.stop();
        });
        server.onExit?.(() => (s.dead = true));
        started.push(s);
      });
    }
  } catch (err) {
    await closeWorkbenches(started);
    throw err;
  }
  return started;
}

export async function closeWorkbenches(slots: readonly WorkbenchSlot[]): Promise<void> {
  await Promise.allSettled(slots.map((s) => s.stop()));
}

function slot(id: number, label: string, client: WorkbenchClient, stop: () => Promise<void>): WorkbenchSlot {
  let stopping: Promise<void> | undefined;
  return { id, label, client, leftovers: [], dead: false, stop: () => (stopping ??= stop()) };
}

/** A URL as reports may show it: without credentials or query. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
