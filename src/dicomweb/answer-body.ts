/**
 * An answer's body read chunk by chunk with backpressure, and a guard around undici 7's HTTP/1
 * parser. When a body is read more slowly than it arrives (a WADO-RS answer written to disk) the
 * parser pauses; if the server then closes the connection to end the body, as Orthanc does for
 * WADO-RS (`Connection: close`, no length), undici 7 trips `assert(!this.paused)` in the socket's
 * 'end' handler and the process dies, uncatchably (nodejs/undici#5360, fixed in undici 8, which
 * needs Node 22). The guard runs first on every socket's 'end': it moves what each open body has
 * buffered (at most its high-water mark) into that body's own queue, which resumes the parser, so
 * undici's handler finds it running and ends the body normally.
 */
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { buildConnector } from 'undici';

export class AnswerBody {
  private readonly queue: Buffer[] = [];
  private ended = false;
  private failure: unknown;
  private waiting: (() => void) | undefined;
  private signalled = false;

  constructor(private readonly body: Readable) {
    body.on('readable', this.notify);
    body.on('end', () => {
      this.ended = true;
      this.notify();
    });
    body.on('error', (err) => {
      this.failure ??= err;
      this.notify();
    });
    body.on('close', () => {
      // Closed with neither an end nor an error: the connection went away under it.
      if (!this.ended)
        this.failure ??= Object.assign(new Error('the answer was closed before its end'), { code: 'ECONNRESET' });
      this.notify();
    });
  }

  get complete(): boolean {
    return this.ended && this.queue.length === 0;
  }

  /** The chunks in order: first what a rescue took, then what the body holds or will hold. */
  async *chunks(): AsyncGenerator<Buffer> {
    for (;;) {
      const chunk = this.queue.shift() ?? (this.body.read() as Buffer | null);
      if (chunk !== null) {
        yield chunk;
        continue;
      }
      if (this.failure !== undefined) throw this.failure;
      if (this.ended) return;
      await this.next();
    }
  }

  /** Takes everything the body has buffered into the queue; reading it resumes undici's parser. */
  rescue(): void {
    if (this.body.destroyed) return;
    for (let chunk = this.body.read() as Buffer | null; chunk !== null; chunk = this.body.read() as Buffer | null)
      this.queue.push(chunk);
    if (this.queue.length > 0) this.notify();
  }

  destroy(): void {
    if (!this.body.destroyed && !this.body.readableEnded) this.body.destroy();
  }

  private readonly notify = (): void => {
    const wake = this.waiting;
    this.waiting = undefined;
    if (wake) wake();
    else this.signalled = true;
  };

  private next(): Promise<void> {
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.waiting = resolve));
  }
}

/** A connector whose sockets rescue the open bodies before undici sees their end. */
export function guardedConnector(connect: buildConnector.connector, open: Set<AnswerBody>): buildConnector.connector {
  return (options, callback) =>
    connect(options, (err, socket) => {
      // On failure undici passes no socket at all (not null).
      if (err) {
        callback(err, null);
        return;
      }
      (socket as Socket).prependListener('end', () => {
        for (const body of open) body.rescue();
      });
      callback(null, socket as Socket);
    });
}
