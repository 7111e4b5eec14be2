import type { RgbSamples, Vec3, Volume } from '../volume.js';
import { withLazyRange, withoutRange } from '../volume-builder.js';
import type { GantryTilt } from './gantry-tilt.js';
import { fail } from './errors.js';

/**
 * MITK's gantry-tilt correction (`ITKDICOMSeriesReaderHelper::FixUpTiltedGeometry`): ITK has
 * stacked the tilted slices into an orthogonal volume; an ITK ResampleImageFilter then shears
 * each slice back along the column direction by the per-slice shift, with linear interpolation,
 * onto a grid taller by the whole shift. Voxels that no slice covers get the pixel type's
 * `NumericTraits::min()`, and the z spacing becomes the real distance between slice planes.
 */
export function shearTiltedVolume(volume: Volume, tilt: GantryTilt, file: string): Volume {
  const [columns, rows, depth] = volume.dims;
  const spacingY = volume.spacing[1];
  // Millimetres each further slice is shifted along the column direction.
  const perSlice = tilt.shiftUp / tilt.slicesApart;
  const added = Math.abs(perSlice * (depth - 1));
  const newRows = rows + Math.trunc(added / spacingY + 2.0);
  // Headers choose the shift and the row spacing; refuse a grid that cannot be held.
  const total = columns * newRows * depth * volume.frames.length;
  if (!Number.isSafeInteger(total) || total > 2 ** 30)
    fail(
      'UNSUPPORTED_PIXEL_DATA',
      file,
      `is on a tilted gantry whose shift (${added.toFixed(3)} mm over ${spacingY} mm rows) would shear it onto ${columns}x${newRows}x${depth} voxels, more than this reader holds`,
    );
  const factor = perSlice / spacingY;
  // With a positive shift the extra rows go before the origin (one spare row included).
  const shiftRows = perSlice > 0 ? -(added / spacingY + 1) : 0;
  const yDir: Vec3 = [volume.direction[1], volume.direction[4], volume.direction[7]];
  const origin: Vec3 =
    perSlice > 0
      ? [
          volume.origin[0] - yDir[0] * (added + spacingY),
          volume.origin[1] - yDir[1] * (added + spacingY),
          volume.origin[2] - yDir[2] * (added + spacingY),
        ]
      : [...volume.origin];
  const cast = pixelCast(volume.componentType);
  const filler = typeMinimum(volume.componentType);
  const frames = volume.frames.map((f) => shear(f, columns, rows, depth, newRows, shiftRows, factor, filler, cast));
  const rgb = volume.rgb?.map((bytes) => shearRgb(bytes, columns, rows, depth, newRows, shiftRows, factor));
  const out: Volume = withLazyRange({
    ...withoutRange(volume),
    dims: [columns, newRows, depth],
    origin,
    spacing: [volume.spacing[0], spacingY, tilt.shiftNormal / tilt.slicesApart],
    frames,
  });
  if (rgb) out.rgb = rgb;
  return out;
}

/** Input row and weight of the next row for output row j of slice k; undefined outside. */
function sampleRow(
  j: number,
  k: number,
  rows: number,
  shiftRows: number,
  factor: number,
): [number, number, number] | undefined {
  const y = j + shiftRows + factor * k;
  // ITK's interpolator takes points up to half a voxel beyond the outermost centres.
  if (!(y >= -0.5 && y < rows - 0.5)) return undefined;
  const base = Math.floor(y);
  if (base < 0) return [0, 0, 0];
  const t = y - base;
  if (t <= 0 || base + 1 > rows - 1) return [base, base, 0];
  return [base, base + 1, t];
}

function shear(
  input: Float32Array,
  columns: number,
  rows: number,
  depth: number,
  newRows: number,
  shiftRows: number,
  factor: number,
  filler: number,
  cast: (v: number) => number,
): Float32Array {
  const out = new Float32Array(columns * newRows * depth);
  for (let k = 0; k < depth; k++) {
    for (let j = 0; j < newRows; j++) {
      const at = (k * newRows + j) * columns;
      const sample = sampleRow(j, k, rows, shiftRows, factor);
      if (sample === undefined) {
        out.fill(filler, at, at + columns);
        continue;
      }
      const [a, b, t] = sample;
      const rowA = (k * rows + a) * columns;
      const rowB = (k * rows + b) * columns;
      for (let i = 0; i < columns; i++)
        out[at + i] = cast(input[rowA + i]! + t * (input[rowB + i]! - input[rowA + i]!));
    }
  }
  return out;
}

/** The same shear on interleaved RGB bytes (ITK's RGBPixel<uchar>: each channel, filler black). */
function shearRgb(
  input: RgbSamples,
  columns: number,
  rows: number,
  depth: number,
  newRows: number,
  shiftRows: number,
  factor: number,
): RgbSamples {
  // The samples keep their bits: 16-bit colour stays unsigned short.
  const out =
    input instanceof Uint16Array
      ? new Uint16Array(columns * newRows * depth * 3)
      : new Uint8Array(columns * newRows * depth * 3);
  for (let k = 0; k < depth; k++) {
    for (let j = 0; j < newRows; j++) {
      const sample = sampleRow(j, k, rows, shiftRows, factor);
      if (sample === undefined) continue;
      const [a, b, t] = sample;
      const at = (k * newRows + j) * columns * 3;
      const rowA = (k * rows + a) * columns * 3;
      const rowB = (k * rows + b) * columns * 3;
      for (let i = 0; i < columns * 3; i++)
        out[at + i] = Math.trunc(input[rowA + i]! + t * (input[rowB + i]! - input[rowA + i]!));
    }
  }
  return out;
}

const INTEGER_RANGES: Record<string, [number, number]> = {
  uint8: [0, 0xff],
  int8: [-128, 127],
  uint16: [0, 0xffff],
  int16: [-32768, 32767],
  uint32: [0, 0xffffffff],
  int32: [-(2 ** 31), 2 ** 31 - 1],
};

/** `itk::NumericTraits<T>::min()`: the lowest integer, but the smallest positive normal float. */
function typeMinimum(type: string): number {
  const range = INTEGER_RANGES[type];
  if (range) return range[0];
  return type === 'float32' ? 1.1754943508222875e-38 : 2.2250738585072014e-308;
}

/** ResampleImageFilter's `CastPixelWithBoundsChecking`: clamped to the type, then `static_cast`. */
function pixelCast(type: string): (v: number) => number {
  const range = INTEGER_RANGES[type];
  if (!range) return (v) => v;
  const [lo, hi] = range;
  return (v) => (v < lo ? lo : v > hi ? hi : Math.trunc(v));
}
