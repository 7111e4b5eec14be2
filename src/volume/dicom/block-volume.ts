import type { Volume } from '../volume.js';
import { valueRange } from '../volume-builder.js';
import { readDataSet } from './data-set.js';
import { fail } from './errors.js';
import { inParallel } from './parallel.js';
import type { DicomGeometry } from './geometry.js';
import { decodeInto, fileVoxels, rescaledType } from './pixel-values.js';
import { sliceHeader, type SliceHeader } from './slice-header.js';

/**
 * The voxels of a block: each file is read whole once, decoded straight into the time step's
 * frame at its slice offset and dropped, a few files at a time; the pixel type is the first
 * file's (`ITKDICOMSeriesReaderHelper::Load`). An RTDOSE is float scaled by DoseGridScaling.
 */
export async function readBlockVolume(
  timeSteps: readonly (readonly SliceHeader[])[],
  geometry: DicomGeometry,
): Promise<Volume> {
  const first = timeSteps[0]![0]!;
  const depth = timeSteps[0]!.reduce((n, h) => n + h.frames, 0);
  const perStep = first.rows * first.columns * depth;
  const frames = timeSteps.map(() => new Float32Array(perStep));
  const rgb = first.samples === 3 ? timeSteps.map(() => new Uint8Array(perStep * 3)) : undefined;
  const jobs: Array<{ header: SliceHeader; t: number; offset: number }> = [];
  timeSteps.forEach((step, t) => {
    let offset = 0;
    for (const h of step) {
      jobs.push({ header: h, t, offset });
      offset += fileVoxels(h);
    }
  });
  let componentType: string = rescaledType(first);
  await inParallel(jobs, async ({ header, t, offset }, index) => {
    const full = sliceHeader(await readDataSet(header.file));
    if (full.rows !== first.rows || full.columns !== first.columns)
      fail(
        'CORRUPT',
        header.file,
        `is ${full.columns}x${full.rows}, the series' first file ${first.columns}x${first.rows}`,
      );
    await decodeInto(full, frames[t]!, offset, rgb?.[t]);
    // The first file's type, with what its decoding learnt (a codestream's precision).
    if (index === 0) componentType = rescaledType(full);
  });
  if (first.modality === 'RTDOSE') {
    const scaling = Number((first.ds.string('x3004000e') ?? '1').trim()) || 1;
    for (const f of frames) for (let i = 0; i < f.length; i++) f[i]! *= scaling;
    componentType = 'float32';
  }
  return {
    dims: [first.columns, first.rows, depth],
    spacing: geometry.spacing,
    origin: geometry.origin,
    direction: geometry.direction,
    frames,
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType,
    range: valueRange(frames),
    ...(rgb ? { rgb } : {}),
  };
}
