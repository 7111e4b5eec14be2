import {
  connect,
  launchWorkbench,
  type ExchangeEvent,
  type ServerInfo,
  type WorkbenchClient,
} from '../client/index.js';
import type { PoolSlot } from './pool.js';

/** A workbench a factory started for a run; the run stops it when it ends. */
export interface StartedWorkbench {
  url: string;
  /** How reports name it, e.g. `embedded #2`. */
  label: string;
  /** The API token it requires, if any. */
  token?: string;
  stop(): Promise<void>;
  /** Called should it end without being asked to (a crashed worker takes its workbench with it). */
  onExit?(listener: () => void): void;
}

/**
 * Starts the workbenches of a run: reference workbenches embedded in this process, MITK
 * workbenches launched for the run, or anything else that serves the API at a URL. The run
 * never starts more than it has cases.
 */
export interface WorkbenchFactory {
  /** How many workbenches to start at most. */
  readonly count: number;
  /** Whether they may start at once; a launch picks the first free port, so it waits for the one before. */
  readonly concurrent: boolean;
  /** Starts workbench `index` (0-based) of the `of` this run starts. */
  start(index: number, of: number): Promise<StartedWorkbench>;
}

/** Workbenches that are running already, one case at a time on each. */
export interface WorkbenchUrls {
  urls: string[];
  token?: string;
  /** Where the token came from, for messages (e.g. `the environment variable MY_TOKEN`). */
  tokenSource?: string;
  allowInsecureToken?: boolean;
}

/** Where a run sends its cases. */
export type WorkbenchSource = WorkbenchUrls | WorkbenchFactory;

/** One workbench session of the run; a case runs on one slot at a time. */
export interface WorkbenchSlot extends PoolSlot {
  readonly client: WorkbenchClient;
  /** Filled on first use, for provenance. */
  info?: ServerInfo;
  /** Nodes the last case on this slot created (and which case), removed before the next case starts. */
  leftovers: { owner: string; uids: string[] } | undefined;
  /** Set when the workbench is known to be gone (an embedded worker that exited). */
  dead: boolean;
  /** A workbench given by URL (someone's running one), not one the run started: its scene is not known to be empty. */
  readonly given: boolean;
  /** Nodes the run hid because wbplay did not make them; shown again when the run ends. */
  hidden?: string[];
  /** Why the workbench left the pool though it still answers (its scene could not be cleared). */
  retired?: string;
  /** Where its token came from, for messages. */
  tokenSource?: string;
  /** Sees every HTTP exchange of this slot's client while set: the trace of the case it runs. */
  onExchange?: (event: ExchangeEvent) => void;
  stop(): Promise<void>;
}

/**
 * Connects to the given workbenches, or starts them for `cases` cases. Anything started here
 * is stopped by its slot's `stop`, also when a later start fails.
 */
export async function openWorkbenches(
  source: WorkbenchSource,
  cases: number,
  options: ConnectionOptions = {},
): Promise<WorkbenchSlot[]> {
  if ('urls' in source) {
    const connected: WorkbenchSlot[] = [];
    try {
      for (const url of source.urls) {
        const s = slotWith(
          connected.length,
          redact(url),
          url,
          source.token,
          source.allowInsecureToken === true,
          options,
          (client) => client.close(),
          true,
        );
        if (source.tokenSource !== undefined) s.tokenSource = source.tokenSource;
        connected.push(s);
      }
    } catch (err) {
      await closeWorkbenches(connected);
      throw err;
    }
    return connected;
  }
  const count = Math.max(1, Math.min(source.count, cases));
  const started: StartedWorkbench[] = [];
  const failures: unknown[] = [];
  const start = async (index: number): Promise<void> => {
    try {
      started[index] = await source.start(index, count);
    } catch (err) {
      failures.push(err);
    }
  };
  if (source.concurrent) await Promise.all(Array.from({ length: count }, (_, i) => start(i)));
  else for (let i = 0; i < count && failures.length === 0; i++) await start(i);
  if (failures.length > 0) {
    await Promise.allSettled(started.filter((w) => w !== undefined).map((w) => w.stop()));
    throw failures[0];
  }
  return started.map((workbench, i) => {
    const s = slotWith(
      i,
      workbench.label,
      workbench.url,
      workbench.token,
      false,
      options,
      async (client) => {
        await client.close();
        await workbench.stop();
      },
      false,
    );
    workbench.onExit?.(() => (s.dead = true));
    return s;
  });
}

export async function closeWorkbenches(slots: readonly WorkbenchSlot[]): Promise<void> {
  await Promise.allSettled(slots.map((s) => s.stop()));
}

/** MITK workbenches wbplay launches for the run (the executable: `MITK_WORKBENCH` by default). */
export function launchedWorkbenches(count: number, executable?: string): WorkbenchFactory {
  return {
    count,
    concurrent: false,
    async start() {
      const launched = await launchWorkbench({ ...(executable !== undefined ? { executable } : {}) });
      return {
        url: launched.url,
        label: `launched ${launched.url}`,
        token: launched.token,
        stop: () => launched.stop(),
      };
    },
  };
}

/** How the run talks to every workbench. */
export interface ConnectionOptions {
  /** One HTTP exchange, headers and body (the client's default: 30 s). */
  requestTimeoutMs?: number;
}

/** A slot's client: its exchanges go to whatever the slot's `onExchange` is at the time. */
function slotWith(
  id: number,
  label: string,
  url: string,
  token: string | undefined,
  allowInsecureToken: boolean,
  options: ConnectionOptions,
  stop: (client: WorkbenchClient) => Promise<void>,
  given: boolean,
): WorkbenchSlot {
  const client = connect({
    url,
    ...(token !== undefined ? { token } : {}),
    ...(allowInsecureToken ? { allowInsecureToken: true } : {}),
    ...(options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {}),
    onExchange: (event) => s.onExchange?.(event),
  });
  let stopping: Promise<void> | undefined;
  const s: WorkbenchSlot = {
    id,
    label,
    client,
    leftovers: undefined,
    dead: false,
    given,
    stop: () => (stopping ??= stop(client)),
  };
  return s;
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
