/**
 * The in-memory image every reader produces and the renderer samples.
 *
 * World coordinates are millimetres in LPS, as in ITK and MITK. The index-to-world transform
 * maps voxel centres: world = origin + direction * (spacing ⊙ index).
 */
import type { Segmentation } from './segmentation.js';

import type { Vec3 } from '../api/wire.js';

export type { Vec3 };

/** Row-major 3x3 matrix; column j is the world direction of index axis j. */
export type Mat3 = [number, number, number, number, number, number, number, number, number];

/** One time step's interleaved RGB samples; the array's type gives their bits. */
export type RgbSamples = Uint8Array | Uint16Array;

export const IDENTITY: Mat3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

export interface Volume {
  /** Voxel counts along the index axes; a 2D image has dims[2] === 1. */
  dims: Vec3;
  spacing: Vec3;
  /** World position of the centre of voxel (0, 0, 0). */
  origin: Vec3;
  direction: Mat3;
  /** One frame per time step, x fastest, then y, then z; a segmentation's first label group. */
  frames: Float32Array[];
  /** Duration of one time step in ms and the time point of step 0. */
  timeStepMs: number;
  timeOriginMs: number;
  /**
   * Where the time steps are not evenly spaced (MITK's ArbitraryTimeGeometry, e.g. a DICOM
   * 3D+t series): the steps' boundaries in ms, one more than there are steps; step t runs from
   * `timeBoundsMs[t]` to `timeBoundsMs[t + 1]`. `timeStepMs` and `timeOriginMs` then give their mean.
   */
  timeBoundsMs?: number[];
  /** Component type as read from the file, e.g. `uint8`, `int16`, `float32`. */
  componentType: string;
  /**
   * Colour images (DICOM RGB, YBR, palette): interleaved RGB samples per time step, x fastest,
   * all of one kind: bytes for 8-bit colour, unsigned shorts for 16-bit colour (MITK's
   * `RGBPixel<unsigned char>` or `RGBPixel<unsigned short>`), never scaled between the two.
   * `frames` then hold the luminance of those samples, so grey consumers (statistics, level
   * window) still work.
   */
  rgb?: RgbSamples[];
  /** Minimum and maximum over all frames. */
  range: [number, number];
  /**
   * Present when the file is a MITK multi-label segmentation (its header says so); such data
   * is drawn label by label in the labels' colours. Any other image is drawn in grey values.
   */
  segmentation?: Segmentation;
}

export function voxelCount(v: Volume): number {
  return v.dims[0] * v.dims[1] * v.dims[2];
}

export function indexToWorld(v: Volume, i: number, j: number, k: number): Vec3 {
  const d = v.direction;
  const a = i * v.spacing[0];
  const b = j * v.spacing[1];
  const c = k * v.spacing[2];
  return [
    v.origin[0] + d[0] * a + d[1] * b + d[2] * c,
    v.origin[1] + d[3] * a + d[4] * b + d[5] * c,
    v.origin[2] + d[6] * a + d[7] * b + d[8] * c,
  ];
}

/**
 * Continuous index of a world point. The direction matrix is orthonormal for every format we
 * read, so its inverse is its transpose.
 */
export function worldToIndex(v: Volume, p: Vec3): Vec3 {
  const d = v.direction;
  const x = p[0] - v.origin[0];
  const y = p[1] - v.origin[1];
  const z = p[2] - v.origin[2];
  return [
    (d[0] * x + d[3] * y + d[6] * z) / v.spacing[0],
    (d[1] * x + d[4] * y + d[7] * z) / v.spacing[1],
    (d[2] * x + d[5] * y + d[8] * z) / v.spacing[2],
  ];
}

/**
 * Axis-aligned world bounds of the image. The box runs from index -0.5 to dim-0.5 on each axis,
 * half a voxel beyond the outermost centres, as a real workbench reports it.
 */
export function worldBounds(v: Volume): { min: Vec3; max: Vec3 } {
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (const i of [-0.5, v.dims[0] - 0.5]) {
    for (const j of [-0.5, v.dims[1] - 0.5]) {
      for (const k of [-0.5, v.dims[2] - 0.5]) {
        const p = indexToWorld(v, i, j, k);
        for (let a = 0; a < 3; a++) {
          min[a] = Math.min(min[a]!, p[a]!);
          max[a] = Math.max(max[a]!, p[a]!);
        }
      }
    }
  }
  return { min, max };
}

/**
 * Spacing of the image along each world axis: the spacing of the index axis that points most
 * nearly along it. This is what a reinit uses for the slice count of each view.
 */
export function worldAxisSpacing(v: Volume): Vec3 {
  const out: Vec3 = [1, 1, 1];
  for (let w = 0; w < 3; w++) {
    let best = 0;
    let bestDot = -1;
    for (let j = 0; j < 3; j++) {
      const dot = Math.abs(v.direction[w * 3 + j]!);
      if (dot > bestDot) {
        bestDot = dot;
        best = j;
      }
    }
    out[w] = v.spacing[best]!;
  }
  return out;
}

/**
 * The segmentation as a volume on `grid`'s geometry: its frames are the first group's and its
 * values unsigned short, as MITK holds a segmentation.
 */
export function segmentationVolume(
  grid: Omit<Volume, 'frames' | 'componentType' | 'range' | 'segmentation'>,
  segmentation: Segmentation,
): Volume {
  let min = Infinity;
  let max = -Infinity;
  for (const group of segmentation.groups) {
    for (const frame of group.frames) {
      for (let i = 0; i < frame.length; i++) {
        const v = frame[i]!;
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
  }
  const frames = segmentation.groups[0]?.frames ?? [];
  return { ...grid, frames, componentType: 'uint16', range: min <= max ? [min, max] : [0, 0], segmentation };
}
