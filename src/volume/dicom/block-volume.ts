import type { Volume } from '../volume.js';
import { withLazyRange } from '../volume-builder.js';
import { isNative } from './codecs.js';
import { decodeOnPool, poolSize, warmPool } from './decode-pool.js';
import { runJob } from './dicom-decode-worker.js';
import { UNCOMPRESSED } from './header.js';
import { DicomReadError, type DicomErrorCode } from './errors.js';
import type { DicomGeometry } from './geometry.js';
import { inParallel } from './parallel.js';
import { fileVoxels, rescaledType, rgbBits } from './pixel-values.js';
import type { SliceHeader } from './slice-header.js';
import { timeBounds } from './time-bounds.js';
import { isPalette } from './palette.js';
import { checkPixelType } from './pixel-type.js';

/** Whether a file's frames can be decoded in ranges: several uncompressed (not deflated) frames of whole bytes. */
function splittable(h: SliceHeader): boolean {
  return h.frames > 1 && h.bitsAllocated >= 8 && UNCOMPRESSED.has(h.transferSyntax);
}

/** Below this many voxels a block is decoded on this thread: starting threads would cost more. */
const POOL_VOXELS = 4 * 1024 * 1024;

/**
 * Told, as soon as a folder is listed, how large its block may be (files × the first file's
 * voxels): when the pool will decode it (several files, or one multi-frame file shared out in
 * ranges of frames), its threads start now, while the headers are read.
 */
export function expectBlock(files: number, first: SliceHeader): void {
  if ((files > 1 || splittable(first)) && files * fileVoxels(first) >= POOL_VOXELS && poolSize() > 1)
    warmPool(compressed(first));
}

function compressed(h: SliceHeader): boolean {
  try {
    return !isNative(h);
  } catch {
    return false; // a transfer syntax not read: the read fails later, naming the file
  }
}

/**
 * The voxels of a block: each file is read whole once, decoded straight into its time step's
 * frame at its slice offset and dropped. A large block is decoded by a pool of threads into
 * shared memory; a small one here, a few files at a time. The pixel type is the first file's
 * (`ITKDICOMSeriesReaderHelper::Load`). An RTDOSE is float scaled by DoseGridScaling.
 */
export async function readBlockVolume(
  timeSteps: readonly (readonly SliceHeader[])[],
  geometry: DicomGeometry,
): Promise<Volume> {
  const first = timeSteps[0]![0]!;
  checkPixelType(first);
  const depth = timeSteps[0]!.reduce((n, h) => n + h.frames, 0);
  const perStep = first.rows * first.columns * depth;
  const total = perStep * timeSteps.length;
  // A header may claim any size; refuse what cannot be held before allocating it.
  if (!Number.isSafeInteger(total) || total > 2 ** 30)
    throw new DicomReadError(
      'UNSUPPORTED_PIXEL_DATA',
      first.file,
      `describes ${first.columns}x${first.rows}x${depth}x${timeSteps.length} voxels, more than this reader holds`,
    );
  const files = timeSteps.flat();
  const pooled = total >= POOL_VOXELS && (files.length > 1 || splittable(first)) && poolSize() > 1;
  const buffer = (bytes: number): ArrayBuffer | SharedArrayBuffer =>
    pooled ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  const frameBuffers = timeSteps.map(() => buffer(perStep * 4));
  // 16-bit colour is held as MITK holds it, RGBPixel<unsigned short>: two bytes a sample.
  const bits = rgbBits(first);
  const rgbBuffers =
    first.samples === 3 || isPalette(first) ? timeSteps.map(() => buffer((perStep * 3 * bits) / 8)) : undefined;
  const jobs = timeSteps.flatMap((step, t) => {
    let offset = 0;
    return step.flatMap((h) => {
      const job = {
        file: h.file,
        frame: frameBuffers[t]! as SharedArrayBuffer,
        ...(rgbBuffers ? { rgb: rgbBuffers[t]! as SharedArrayBuffer, rgbBits: bits } : {}),
        offset,
        rows: first.rows,
        columns: first.columns,
      };
      offset += fileVoxels(h);
      if (!pooled || !splittable(h)) return [job];
      // One multi-frame file is shared out in ranges of frames, so every thread decodes part of it.
      const per = Math.ceil(h.frames / (poolSize() * 4));
      const ranges = [];
      for (let f = 0; f < h.frames; f += per) {
        const count = Math.min(per, h.frames - f);
        ranges.push({ ...job, offset: job.offset + f * h.rows * h.columns, frames: { first: f, count } });
      }
      return ranges;
    });
  });
  let componentType: string = rescaledType(first);
  if (pooled) componentType = await decodeOnPool(jobs);
  else
    await inParallel(jobs, async (job, index) => {
      const answer = await runJob({ ...job, id: index });
      if ('error' in answer)
        throw new DicomReadError(answer.error.code as DicomErrorCode, answer.error.file, answer.error.reason);
      // The first file's type, with what its decoding learnt (a codestream's precision).
      if (index === 0) componentType = answer.type;
    });
  const frames = frameBuffers.map((b) => new Float32Array(b));
  if (first.modality === 'RTDOSE') {
    const scaling = Number((first.ds.string('x3004000e') ?? '1').trim()) || 1;
    for (const f of frames) for (let i = 0; i < f.length; i++) f[i]! *= scaling;
    componentType = 'float32';
  }
  const bounds = timeBounds(timeSteps);
  // The value range is taken when first asked for (`withLazyRange`): loading an image asks only
  // for the central slice's extremes (level window, binary check).
  return withLazyRange({
    dims: [first.columns, first.rows, depth],
    spacing: geometry.spacing,
    origin: geometry.origin,
    direction: geometry.direction,
    frames,
    timeStepMs: bounds ? (bounds.at(-1)! - bounds[0]!) / timeSteps.length || 1 : 1,
    timeOriginMs: 0,
    ...(bounds ? { timeBoundsMs: bounds } : {}),
    componentType,
    ...(rgbBuffers ? { rgb: rgbBuffers.map((b) => (bits === 16 ? new Uint16Array(b) : new Uint8Array(b))) } : {}),
  });
}
