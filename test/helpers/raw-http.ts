import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** What came back for one raw request: an answer, or how the connection failed. */
export type RawOutcome =
  | {
      kind: 'answer';
      status: number;
      headers: Record<string, string>;
      body: Buffer;
      /** Interim (1xx) statuses before it. */ interim: number[];
    }
  | { kind: 'reset' | 'closed-without-answer' | 'timeout'; detail: string };

/** Bytes to send, or a pause between two writes (so the server acts on what arrived so far). */
export type RawPart = string | Uint8Array | { pauseMs: number };

export interface RawOptions {
  timeoutMs: number;
  /** The answer to HEAD announces a length but carries no body. */
  head?: boolean;
  /**
   * Wait for the server to close the connection, and report a reset even when it came after
   * the answer: a client reading the answer later than this one would have lost it.
   */
  untilClose?: boolean;
}

/**
 * Sends bytes exactly as given (request line, headers and body of any shape, framed or not)
 * over a fresh connection and reads the first answer. Unlike fetch or undici nothing is
 * normalised, refused or re-encoded on the way, so malformed requests reach the server as
 * written; a reset of the connection is reported as such rather than hidden in a retry.
 */
export function rawRequest(port: number, parts: readonly RawPart[], opts: RawOptions): Promise<RawOutcome> {
  const { timeoutMs, head = false, untilClose = false } = opts;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (outcome: RawOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const received = (): Buffer => Buffer.concat(chunks);
    const timer = setTimeout(
      () =>
        finish({
          kind: 'timeout',
          detail: `no ${untilClose ? 'close' : 'complete answer'} within ${timeoutMs} ms (${received().length} bytes received)`,
        }),
      timeoutMs,
    );
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const answer = untilClose ? undefined : parseAnswer(received(), false, head);
      if (answer) finish(answer);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const reset = err.code === 'ECONNRESET' || err.code === 'EPIPE';
      finish({
        kind: reset ? 'reset' : 'closed-without-answer',
        detail: `${err.code ?? ''} ${err.message} after ${received().length} bytes`,
      });
    });
    socket.on('end', () =>
      finish(
        parseAnswer(received(), true, head) ?? {
          kind: 'closed-without-answer',
          detail: `${received().length} bytes before the close`,
        },
      ),
    );
    socket.on('connect', () => {
      void (async () => {
        for (const p of parts) {
          if (settled || socket.destroyed) return;
          if (typeof p === 'object' && 'pauseMs' in p) await sleep(p.pauseMs);
          else socket.write(p);
        }
      })();
    });
  });
}

/** The first answer in `bytes` once it is complete; interim 1xx answers are skipped. */
function parseAnswer(bytes: Buffer, closed: boolean, head: boolean): RawOutcome | undefined {
  let at = 0;
  const interim: number[] = [];
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) return undefined;
    const [statusLine = '', ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    if (Number.isNaN(status))
      return { kind: 'closed-without-answer', detail: `not an HTTP answer: ${statusLine.slice(0, 80)}` };
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      interim.push(status);
      at = bodyStart;
      continue;
    }
    const answer = (body: Buffer): RawOutcome => ({ kind: 'answer', status, headers, body, interim });
    if (head) return answer(Buffer.alloc(0));
    const length = headers['content-length'];
    if (length !== undefined) {
      const n = Number(length);
      return bytes.length - bodyStart < n ? undefined : answer(bytes.subarray(bodyStart, bodyStart + n));
    }
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const body = dechunk(bytes.subarray(bodyStart));
      return body === undefined ? undefined : answer(body);
    }
    // Without a length the body runs to the close (204 and 304 have none).
    if (status === 204 || status === 304) return answer(Buffer.alloc(0));
    return closed ? answer(bytes.subarray(bodyStart)) : undefined;
  }
}

/** A chunked body once its last chunk has arrived. */
function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    if (bytes.length < eol + 2 + size + 2) return undefined;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
