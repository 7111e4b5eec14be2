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
}

/** The request log: kept in memory for tests and, with a file, appended as JSON lines. */
export class EventLog {
  readonly entries: WorkbenchEvent[] = [];
  private readonly listeners: Array<(e: WorkbenchEvent) => void> = [];
  private readonly stream: WriteStream | undefined;
  private failure: Error | undefined;

  constructor(file?: string) {
    if (file !== undefined) {
      this.stream = createWriteStream(file, { flags: 'a' });
      // A log that cannot be written must not take the server down; close() reports it.
      this.stream.on('error', (err) => {
        this.failure = err;
      });
    }
  }

  record(event: WorkbenchEvent): void {
    this.entries.push(event);
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
