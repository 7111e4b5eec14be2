import { createWriteStream, type WriteStream } from 'node:fs';

/**
 * One request as the workbench saw it. Headers are never recorded, so neither is a token; the
 * path carries no query string for the same reason (a client could put secrets there).
 */
export interface WorkbenchEvent {
  time: string;
  method: string;
  path: string;
  /** null when no answer was sent (a dropped connection or a stall). */
  status: number | null;
  ms: number;
  /** The injected fault, if any. */
  fault?: string;
  /** Injected latency in ms, if any. */
  latency_ms?: number;
  /** An unexpected failure behind a 500 (name and message, never a stack). */
  error?: string;
  /** How the data of a node upload came: its bytes (`direct`) or a path read here (`file-reference`). */
  transfer?: 'direct' | 'file-reference';
}

/** How many of the latest requests the log keeps in memory. */
export const KEPT_EVENTS = 1000;

/**
 * The request log: the latest requests kept in memory (for tests and a look at what just
 * happened) and, with a file, every request appended as JSON lines. Only the latest are kept
 * because a workbench serves for as long as a cohort runs: a log of every request grew with it,
 * and so did the collector's work. Whoever needs every event subscribes.
 */
export class EventLog {
  #entries: WorkbenchEvent[] = [];
  private readonly listeners: Array<(e: WorkbenchEvent) => void> = [];
  private readonly stream: WriteStream | undefined;
  private failure: Error | undefined;

  constructor(
    file?: string,
    private readonly keep = KEPT_EVENTS,
  ) {
    if (file !== undefined) {
      this.stream = createWriteStream(file, { flags: 'a' });
      // A log that cannot be written must not take the server down; close() reports it.
      this.stream.on('error', (err) => {
        this.failure = err;
      });
    }
  }

  /** The latest requests, oldest first: at most the number the log keeps. */
  get entries(): readonly WorkbenchEvent[] {
    return this.#entries.length > this.keep ? this.#entries.slice(-this.keep) : this.#entries;
  }

  record(event: WorkbenchEvent): void {
    this.#entries.push(event);
    // Older ones are dropped a batch of `keep` at a time, so one copy serves as many requests.
    if (this.#entries.length >= 2 * this.keep) this.#entries = this.#entries.slice(-this.keep);
    this.stream?.write(`${JSON.stringify(event)}\n`);
    for (const l of this.listeners) l(event);
  }

  /** Calls `listener` for every later event. */
  subscribe(listener: (e: WorkbenchEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Flushes and closes the file; rejects if it could not be written. */
  async close(): Promise<void> {
    const stream = this.stream;
    if (stream && !stream.closed) {
      await new Promise<void>((resolve) => {
        if (stream.destroyed) resolve();
        else stream.end(() => resolve());
        stream.once('error', () => resolve());
      });
    }
    if (this.failure) throw new Error(`the event log could not be written: ${this.failure.message}`);
  }
}
