import { open } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { readDataSet, readHeader } from './data-set.js';
import { DicomReadError, fail } from './errors.js';
import { decodeInto, decodeNativeFrames, fileVoxels, nativeFrameBytes, rescaledType } from './pixel-values.js';
import { sliceHeader, TAG, type SliceHeader } from './slice-header.js';

/**
 * Runs inside a worker thread of the decode pool: reads one file at a time and decodes it
 * straight into the shared frame it is given, so several cores decode one series.
 */
export interface DecodeJob {
  id: number;
  file: string;
  frame: SharedArrayBuffer;
  rgb?: SharedArrayBuffer;
  offset: number;
  rows: number;
  columns: number;
  /** Only these frames of an uncompressed multi-frame file, so that several threads share one file. */
  frames?: { first: number; count: number };
}

export type DecodeAnswer =
  | { id: number; min: number; max: number; type: string }
  | { id: number; error: { code: string; file: string; reason: string } };

export async function runJob(job: DecodeJob): Promise<DecodeAnswer> {
  try {
    const out = new Float32Array(job.frame);
    const rgb = job.rgb ? new Uint8Array(job.rgb) : undefined;
    let h: SliceHeader;
    let voxels: number;
    if (job.frames === undefined) {
      h = sameSize(sliceHeader(await readDataSet(job.file)), job);
      await decodeInto(h, out, job.offset, rgb);
      voxels = fileVoxels(h);
    } else {
      h = await decodeFrames(job, job.frames, out, rgb);
      voxels = job.frames.count * h.rows * h.columns;
    }
    let min = Infinity;
    let max = -Infinity;
    const end = job.offset + voxels;
    for (let i = job.offset; i < end; i++) {
      const v = out[i]!;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    return { id: job.id, min, max, type: rescaledType(h) };
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
  rgb: Uint8Array | undefined,
): Promise<SliceHeader> {
  const parsed = await readHeader(job.file);
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
  const bytes = Buffer.allocUnsafe(length);
  const handle = await open(job.file, 'r');
  let got: number;
  try {
    ({ bytesRead: got } = await handle.read(bytes, 0, length, start));
  } finally {
    await handle.close();
  }
  if (got < length)
    fail(
      'TRUNCATED',
      job.file,
      `is truncated: frames ${range.first + 1}-${range.first + range.count} of its pixel data end after ${got} of ${length} bytes`,
    );
  decodeNativeFrames(h, bytes, range.count, out, job.offset, rgb);
  return h;
}

const port = parentPort;
if (port) port.on('message', (job: DecodeJob) => void runJob(job).then((answer) => port.postMessage(answer)));
