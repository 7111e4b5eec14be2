import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { parseBytes, readDataSet, readHeader, readHeaderSync, type ParsedFile } from './data-set.js';
import { DicomReadError, fail } from './errors.js';
import { preloadCodecs } from './codecs.js';
import { decodeInto, decodeNativeFrames, nativeFrameBytes, rescaledType } from './pixel-values.js';
import { sliceHeader, TAG, type SliceHeader } from './slice-header.js';
import type { RgbSamples } from '../volume.js';

/**
 * Runs inside a worker thread of the decode pool: reads one file at a time and decodes it
 * straight into the shared frame it is given, so several cores decode one series.
 */
export interface DecodeJob {
  id: number;
  file: string;
  frame: SharedArrayBuffer;
  rgb?: SharedArrayBuffer;
  /** The bits of each RGB sample in `rgb`: 16 for 16-bit colour, held as unsigned shorts. */
  rgbBits?: 8 | 16;
  offset: number;
  rows: number;
  columns: number;
  /** Only these frames of an uncompressed multi-frame file, so that several threads share one file. */
  frames?: { first: number; count: number };
}

export type DecodeAnswer =
  { id: number; type: string } | { id: number; error: { code: string; file: string; reason: string } };

/**
 * A block's jobs, sent once to every thread of the pool. The threads take the next job from a
 * shared counter (`claims[0]`) until none is left, so each answers once per block, not once per
 * file, and none waits for the thread that hands out work. `claims[1]` is set when a job fails:
 * the others stop taking jobs.
 */
export interface DecodeBatch {
  id: number;
  jobs: Array<Omit<DecodeJob, 'id'>>;
  claims: SharedArrayBuffer;
}

/** Asks a thread to load the codec module now, before the batch of a compressed series. */
export interface Preload {
  preload: 'codecs';
}

/** What a thread answers for a batch: the first job's type, if it ran that job. */
export type BatchAnswer =
  { id: number; firstType?: string } | { id: number; error: { code: string; file: string; reason: string } };

/** The `workerData` the pool starts its threads with. */
export const POOL_THREAD = 'wbplay-dicom-decode-pool';

/**
 * How a job reads its file: whole (a file of the series), or its header and then a run of its
 * bytes (a range of a multi-frame file's frames, whose other frames it never reads).
 */
export interface Reader {
  whole(file: string): ParsedFile | Promise<ParsedFile>;
  header(file: string): ParsedFile | Promise<ParsedFile>;
  /** `length` bytes of the file from `position`, fewer where the file ends first. */
  bytes(file: string, position: number, length: number): Uint8Array | Promise<Uint8Array>;
}

/** A job run on the thread that asked, among its other work: reads that do not block it. */
const READER: Reader = { whole: readDataSet, header: readHeader, bytes: readBytes };

export async function runJob(job: DecodeJob, read: Reader = READER): Promise<DecodeAnswer> {
  try {
    const out = new Float32Array(job.frame);
    const rgb = job.rgb ? (job.rgbBits === 16 ? new Uint16Array(job.rgb) : new Uint8Array(job.rgb)) : undefined;
    let h: SliceHeader;
    if (job.frames === undefined) {
      h = sameSize(sliceHeader(await read.whole(job.file)), job);
      await decodeInto(h, out, job.offset, rgb);
    } else h = await decodeFrames(job, job.frames, out, rgb, read);
    return { id: job.id, type: rescaledType(h) };
  } catch (err) {
    if (err instanceof DicomReadError)
      return { id: job.id, error: { code: err.code, file: err.file, reason: err.reason } };
    return {
      id: job.id,
      error: { code: 'CORRUPT', file: job.file, reason: err instanceof Error ? err.message : String(err) },
    };
  }
}

function sameSize(h: SliceHeader, job: DecodeJob): SliceHeader {
  if (h.rows !== job.rows || h.columns !== job.columns)
    throw new DicomReadError(
      'CORRUPT',
      job.file,
      `is ${h.columns}x${h.rows}, the series' first file ${job.columns}x${job.rows}`,
    );
  return h;
}

/**
 * A range of an uncompressed multi-frame file's frames: its header, then only the bytes of those
 * frames, read straight from where they lie in the file and converted from that one buffer.
 */
async function decodeFrames(
  job: DecodeJob,
  range: { first: number; count: number },
  out: Float32Array,
  rgb: RgbSamples | undefined,
  read: Reader,
): Promise<SliceHeader> {
  const parsed = await read.header(job.file);
  const h = sameSize(sliceHeader(parsed), job);
  const frameBytes = nativeFrameBytes(h);
  const length = range.count * frameBytes;
  const element = h.ds.elements[TAG.pixelData]!;
  if (parsed.fileOffset === undefined) {
    // An inflated data set holds its pixels in memory already.
    const all = parsed.ds.byteArray as Uint8Array;
    const start = element.dataOffset + range.first * frameBytes;
    decodeNativeFrames(h, all.subarray(start, start + length), range.count, out, job.offset, rgb);
    return h;
  }
  const start = parsed.fileOffset + element.dataOffset + range.first * frameBytes;
  const bytes = await read.bytes(job.file, start, length);
  if (bytes.length < length)
    fail(
      'TRUNCATED',
      job.file,
      `is truncated: frames ${range.first + 1}-${range.first + range.count} of its pixel data end after ${bytes.length} of ${length} bytes`,
    );
  decodeNativeFrames(h, bytes, range.count, out, job.offset, rgb);
  return h;
}

/** `length` bytes of a file from `position` (fewer where it ends), read without blocking. */
async function readBytes(file: string, position: number, length: number): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const bytes = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(bytes, filled, length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return bytes.subarray(0, filled);
  } catch (err) {
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    await handle.close();
  }
}

/**
 * A pool thread does nothing but decode, so it reads each file with blocking calls (no round
 * trips through libuv's four I/O threads, which every thread of the process shares), into a
 * buffer it keeps for the next file: a series' files are read without allocating (and the
 * kernel zeroing) their size in fresh memory again and again. A buffer lent to a job that is
 * still decoding (a second block's job between awaits) is not lent twice. It is allocated on its
 * own (`allocUnsafeSlow`), never in Node's shared pool of small buffers, so writing into it
 * touches nothing else.
 */
let spare: Buffer | undefined;
/** A larger buffer (a multi-frame file's) is not kept: the thread lives on after the load. */
const KEPT_BYTES = 8 * 1024 * 1024;

/**
 * `length` bytes of the file from `position` (all of it by default; fewer where it ends), into
 * the spare buffer when they fit: a whole file, or a range of a multi-frame file's frames.
 */
function readBlocking(file: string, position = 0, length?: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fail('READ_ERROR', file, code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`);
  }
  try {
    const size = length ?? fstatSync(fd).size - position;
    const buffer = spare !== undefined && spare.length >= size ? spare : Buffer.allocUnsafeSlow(size);
    spare = undefined;
    let filled = 0;
    while (filled < size) {
      const got = readSync(fd, buffer, filled, size - filled, position + filled);
      if (got === 0) break;
      filled += got;
    }
    return buffer.subarray(0, filled);
  } catch (err) {
    if (err instanceof DicomReadError) throw err;
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** Runs a job on this thread's reusable buffer, and takes the buffer back when the job is done. */
async function runPooledJob(job: DecodeJob): Promise<DecodeAnswer> {
  let lent: Buffer | undefined;
  const answer = await runJob(job, {
    whole: (file) => parseBytes((lent = readBlocking(file)), file),
    header: readHeaderSync,
    bytes: (file, position, length) => (lent = readBlocking(file, position, length)),
  });
  const size = lent?.buffer.byteLength ?? 0;
  if (lent !== undefined && size <= KEPT_BYTES && (spare === undefined || size > spare.length))
    spare = Buffer.from(lent.buffer, 0, size);
  return answer;
}

export async function runBatch(batch: DecodeBatch): Promise<BatchAnswer> {
  const claims = new Int32Array(batch.claims);
  let firstType: string | undefined;
  while (Atomics.load(claims, 1) === 0) {
    const index = Atomics.add(claims, 0, 1);
    if (index >= batch.jobs.length) break;
    const answer = await runPooledJob({ ...batch.jobs[index]!, id: batch.id });
    if ('error' in answer) {
      Atomics.store(claims, 1, 1);
      return answer;
    }
    if (index === 0) firstType = answer.type;
  }
  return { id: batch.id, ...(firstType === undefined ? {} : { firstType }) };
}

// Only a thread the pool started listens: this module is also imported by other threads (the
// reference workbench running in a worker), whose messages are not the pool's.
const port = workerData === POOL_THREAD ? parentPort : null;
if (port)
  port.on('message', (message: DecodeBatch | Preload) => {
    if ('preload' in message) preloadCodecs();
    else void runBatch(message).then((answer) => port.postMessage(answer));
  });
