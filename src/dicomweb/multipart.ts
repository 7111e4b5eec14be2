/**
 * A multipart/related answer (WADO-RS, PS3.18 8.6.1.2) read as a stream: each part's body is
 * handed on chunk by chunk as it arrives, and the next network chunk is read only once the
 * previous one is written, so memory holds one chunk whatever the size of a part or a series.
 *
 * The parser is multipasta: of the parsers measured (bench/multipart.bench.ts) it is the fastest
 * that streams part bodies; @remix-run/multipart-parser gathers each part in memory and dicer has
 * an unfixed advisory. multipasta 0.2.8 misreads a closing delimiter whose two dashes arrive in
 * different writes (it takes the second dash for a part's headers), so the bytes that could be
 * the start of a closing delimiter are held back until the next chunk shows what they are.
 */
import { make as makeParser } from 'multipasta';
import { DicomwebError } from './errors.js';

/** Where the parts go; each method is awaited before the next chunk is read. */
export interface PartSink {
  /** A part begins, with its headers (names in lower case). */
  start(headers: Record<string, string | string[]>): Promise<void>;
  data(chunk: Uint8Array): Promise<void>;
  /** The part is complete. */
  end(): Promise<void>;
  /** The answer ended (or failed) inside the part: what was written of it is to be dropped. */
  abort(): Promise<void>;
}

type Event =
  { kind: 'start'; headers: Record<string, string | string[]> } | { kind: 'data'; chunk: Uint8Array } | { kind: 'end' };

/** The boundary of a multipart Content-Type, or undefined when it is not multipart or has none. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^\s*multipart\//i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/**
 * Reads a multipart body into `sink`. A body that ends before its closing delimiter throws
 * ARCHIVE_BAD_RESPONSE (retryable: a connection cut short) after aborting the part in progress;
 * the parts completed before it stay with the sink.
 */
export async function readMultipart(
  body: AsyncIterable<Uint8Array>,
  contentType: string,
  sink: PartSink,
  describe: string,
): Promise<{ parts: number }> {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined)
    throw new DicomwebError('ARCHIVE_BAD_RESPONSE', `${describe} is ${contentType || 'untyped'}, not multipart`, {
      retryable: false,
    });
  const events: Event[] = [];
  let done = false;
  let failure: string | undefined;
  const parser = makeParser({
    headers: { 'content-type': contentType },
    isFile: () => true,
    onField: () => undefined,
    onFile: (info) => {
      events.push({ kind: 'start', headers: info.headers });
      return (chunk) => events.push(chunk === null ? { kind: 'end' } : { kind: 'data', chunk });
    },
    onError: (error) => {
      if (error._tag !== 'EndNotReached') failure ??= error._tag;
    },
    onDone: () => (done = true),
  });
  const close = Buffer.from(`\r\n--${boundary}--`, 'latin1');
  const opening = Buffer.from(`--${boundary}--`, 'latin1');
  let open = false;
  let parts = 0;
  let written = 0;
  let carry: Uint8Array | undefined;

  const flush = async (): Promise<void> => {
    // Events are taken in order; the chunks they hold are slices of the network chunk just
    // written, consumed before the next one is read.
    while (events.length > 0) {
      const event = events.shift()!;
      if (event.kind === 'start') {
        open = true;
        await sink.start(event.headers);
      } else if (event.kind === 'data') await sink.data(event.chunk);
      else {
        open = false;
        parts++;
        await sink.end();
      }
    }
  };
  const write = async (bytes: Uint8Array): Promise<void> => {
    if (bytes.length === 0) return;
    written += bytes.length;
    parser.write(bytes);
    await flush();
    if (failure !== undefined)
      throw new DicomwebError('ARCHIVE_BAD_RESPONSE', `${describe} is a malformed multipart body (${failure})`, {
        retryable: false,
      });
  };

  try {
    for await (const chunk of body) {
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      // A body of no parts opens with its closing delimiter: it is held back whole too.
      const held = written === 0 && heldBack(data, opening) === data.length ? data.length : heldBack(data, close);
      // A copy: the held bytes must not keep the whole network chunk alive.
      carry = held === 0 ? undefined : Buffer.from(data.subarray(data.length - held));
      await write(held === 0 ? data : data.subarray(0, data.length - held));
    }
    if (carry !== undefined) await write(carry);
    parser.end();
    await flush();
  } catch (err) {
    events.length = 0;
    if (open) await sink.abort();
    throw err;
  }
  if (!done) {
    if (open) await sink.abort();
    throw new DicomwebError(
      'ARCHIVE_BAD_RESPONSE',
      `${describe} ended before its closing boundary (${parts} complete part${parts === 1 ? '' : 's'})`,
      { retryable: true, hint: 'the connection was cut short; the missing instances are fetched one by one' },
    );
  }
  return { parts };
}

/** How many bytes at the end of `data` could begin `delimiter` (a proper prefix of it). */
function heldBack(data: Uint8Array, delimiter: Uint8Array): number {
  for (let k = Math.min(delimiter.length - 1, data.length); k > 0; k--) {
    let match = true;
    for (let i = 0; i < k && match; i++) match = data[data.length - k + i] === delimiter[i];
    if (match) return k;
  }
  return 0;
}
