import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DicomwebError } from '../../src/dicomweb/index.js';
import { boundaryOf, readMultipart, type PartSink } from '../../src/dicomweb/multipart.js';

const BOUNDARY = 'b0undary-with-dashes--x';
const TYPE = `multipart/related; type="application/dicom"; boundary="${BOUNDARY}"`;

function body(parts: Buffer[]): Buffer {
  const pieces: Buffer[] = [];
  for (const [i, p] of parts.entries())
    pieces.push(Buffer.from(`${i === 0 ? '' : '\r\n'}--${BOUNDARY}\r\nContent-Type: application/dicom\r\n\r\n`), p);
  pieces.push(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

/** Parts as the sink saw them: complete ones, and whether one was aborted. */
class Recorder implements PartSink {
  complete: Buffer[] = [];
  aborted = 0;
  headers: Record<string, string | string[]>[] = [];
  private current: Buffer[] = [];
  async start(headers: Record<string, string | string[]>): Promise<void> {
    this.headers.push(headers);
    this.current = [];
  }
  async data(chunk: Uint8Array): Promise<void> {
    // A copy: the chunk is a view of the network chunk, which is not the sink's to keep.
    this.current.push(Buffer.from(chunk));
    await new Promise((resolve) => setImmediate(resolve));
  }
  async end(): Promise<void> {
    this.complete.push(Buffer.concat(this.current));
  }
  async abort(): Promise<void> {
    this.aborted++;
  }
}

async function* chunked(bytes: Buffer, sizes: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length]!);
    // A fresh buffer each time, as a socket hands them over.
    yield Buffer.from(bytes.subarray(at, at + n));
    at += n;
  }
}

/** Part bodies that hold pieces of the boundary, dashes and CRLFs: what trips a boundary scanner. */
const partArb = fc
  .array(
    fc.oneof(
      fc.constantFrom('-', '--', '\r\n', `--${BOUNDARY.slice(0, 5)}`, `\r\n--${BOUNDARY.slice(0, -1)}`, 'DICM'),
      fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a).toString('latin1')),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => Buffer.from(pieces.join(''), 'latin1'))
  // A part never holds its delimiter (the writer picks a boundary that occurs in no part).
  .filter((part) => !part.includes(`\r\n--${BOUNDARY}`));

test('boundaryOf reads quoted and bare boundaries, and only of multipart types', () => {
  assert.equal(boundaryOf(TYPE), BOUNDARY);
  assert.equal(boundaryOf('multipart/related; type=application/dicom; boundary=abc'), 'abc');
  assert.equal(boundaryOf('application/dicom+json'), undefined);
  assert.equal(boundaryOf('multipart/related'), undefined);
});

test('parts come out whole however the body is chunked (closing delimiter split anywhere included)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(partArb, { minLength: 1, maxLength: 4 }),
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }),
      async (parts, sizes) => {
        const sink = new Recorder();
        const { parts: n } = await readMultipart(chunked(body(parts), sizes), TYPE, sink, 'the answer');
        assert.equal(n, parts.length);
        assert.deepEqual(sink.complete, parts);
        assert.equal(sink.aborted, 0);
        assert.equal(sink.headers[0]!['content-type'], 'application/dicom');
      },
    ),
    { numRuns: 300 },
  );
});

test('every one-byte and two-byte chunking of the end of a body completes', async () => {
  const parts = [Buffer.from('first'), Buffer.from('second-')];
  const whole = body(parts);
  for (let split = whole.length - 40; split < whole.length; split++) {
    const sink = new Recorder();
    const head = whole.subarray(0, split);
    const tail = whole.subarray(split);
    async function* two(): AsyncGenerator<Uint8Array> {
      yield head;
      for (const b of tail) yield Buffer.from([b]);
    }
    await readMultipart(two(), TYPE, sink, 'the answer');
    assert.deepEqual(sink.complete, parts, `split at ${split}`);
  }
});

test('a body cut anywhere before its closing delimiter: ARCHIVE_BAD_RESPONSE, complete parts kept, the open one aborted', async () => {
  const parts = [Buffer.alloc(300, 1), Buffer.alloc(200, 2), Buffer.alloc(100, 3)];
  const whole = body(parts);
  const closing = whole.lastIndexOf(`--${BOUNDARY}--`) + BOUNDARY.length + 4;
  for (let cut = 0; cut < closing; cut += 7) {
    const sink = new Recorder();
    const err = await readMultipart(chunked(whole.subarray(0, cut), [64]), TYPE, sink, 'the answer to GET /x').catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof DicomwebError, `cut at ${cut}`);
    assert.equal(err.code, 'ARCHIVE_BAD_RESPONSE');
    assert.equal(err.retryable, true);
    assert.match(err.message, /^the answer to GET \/x ended before its closing boundary \(\d complete parts?\)$/);
    assert.deepEqual(sink.complete, parts.slice(0, sink.complete.length), 'complete parts are whole');
    // A part is complete once the delimiter after it has arrived.
    const delimiters = parts.map((_, i) => whole.indexOf(`\r\n--${BOUNDARY}`, i === 0 ? 1 : whole.indexOf(parts[i]!)));
    const expected = delimiters.filter((d) => d >= 0 && d + BOUNDARY.length + 4 <= cut).length;
    assert.ok(
      sink.complete.length >= expected - 1 && sink.complete.length <= expected,
      `cut ${cut}: ${sink.complete.length} of ${expected}`,
    );
    assert.ok(sink.aborted <= 1);
  }
});

test('a sink that fails aborts the open part and ends the reading with its error', async () => {
  const sink = new Recorder();
  sink.data = async () => {
    throw new DicomwebError('CACHE_WRITE', 'could not write the cache at /c: the disk is full (ENOSPC)');
  };
  const err = await readMultipart(chunked(body([Buffer.from('abc')]), [5]), TYPE, sink, 'x').catch((e: unknown) => e);
  assert.equal((err as DicomwebError).code, 'CACHE_WRITE');
  assert.equal(sink.aborted, 1);
});

test('an answer that is not multipart, or whose part headers are malformed, is ARCHIVE_BAD_RESPONSE', async () => {
  const notMultipart = await readMultipart(
    chunked(Buffer.from('{}'), [2]),
    'application/json',
    new Recorder(),
    'x',
  ).catch((e: unknown) => e);
  assert.equal((notMultipart as DicomwebError).code, 'ARCHIVE_BAD_RESPONSE');
  assert.match((notMultipart as DicomwebError).message, /is application\/json, not multipart/);
  const bad = Buffer.from(`--${BOUNDARY}\r\n: no name\r\n\r\nxx\r\n--${BOUNDARY}--`);
  const malformed = await readMultipart(chunked(bad, [100]), TYPE, new Recorder(), 'x').catch((e: unknown) => e);
  assert.equal((malformed as DicomwebError).code, 'ARCHIVE_BAD_RESPONSE');
});
