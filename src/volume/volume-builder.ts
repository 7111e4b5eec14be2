import type { Mat3, Vec3, Volume } from './volume.js';
import type { ImageGeometry } from './image-geometry.js';
import { unreadable } from './image-read-error.js';
import { bytesPerSample, describeGrid, type ScalarType } from './scalar-types.js';

/** Voxel grid of a file: spatial dims (a 2D image has dims[2] = 1), time steps and sample type. */
export interface Grid {
  dims: Vec3;
  timeSteps: number;
  type: ScalarType;
  /** Samples per voxel, stored interleaved: a segmentation's label groups. 1 when absent. */
  components?: number;
}

/** Refuses grids whose voxel count cannot be held in memory, before anything is allocated. */
export function checkGridSize(grid: Grid, where: string): void {
  const voxels = grid.dims[0] * grid.dims[1] * grid.dims[2] * grid.timeSteps * (grid.components ?? 1);
  // A Float32Array frame is capped near 2^31 elements; far smaller images already fill memory.
  if (!Number.isSafeInteger(voxels) || voxels > 2 ** 30) {
    unreadable(`${where}: the image has ${voxels} voxels, more than this reader handles`);
  }
}

/** Bytes the data section of `grid` takes. */
export function dataByteLength(grid: Grid): number {
  return (
    grid.dims[0] * grid.dims[1] * grid.dims[2] * grid.timeSteps * (grid.components ?? 1) * bytesPerSample(grid.type)
  );
}

/** Fails unless `available` bytes hold the whole grid, saying how much is there and how much is needed. */
export function checkDataLength(available: number, grid: Grid, where: string): void {
  const needed = dataByteLength(grid);
  if (available < needed) {
    const spatial =
      grid.timeSteps > 1 ? [...grid.dims, grid.timeSteps] : grid.dims[2] > 1 ? grid.dims : grid.dims.slice(0, 2);
    const shape = grid.components === undefined ? spatial : [grid.components, ...spatial];
    unreadable(
      `${where}: data is ${Math.max(0, available)} bytes, header needs ${needed} (${describeGrid(shape, grid.type)})`,
    );
  }
}

export interface VolumeParts {
  grid: Grid;
  geometry: ImageGeometry;
  frames: Float32Array[];
  timeStepMs: number;
  timeOriginMs: number;
  timeBoundsMs?: number[];
}

export function buildVolume(parts: VolumeParts): Volume {
  const range = valueRange(parts.frames);
  return {
    dims: parts.grid.dims,
    spacing: parts.geometry.spacing,
    // `+ 0` turns the -0 that sign flips leave into 0, so equal geometries compare equal.
    origin: parts.geometry.origin.map((c) => c + 0) as Vec3,
    direction: parts.geometry.direction.map((c) => c + 0) as Mat3,
    frames: parts.frames,
    timeStepMs: parts.timeStepMs,
    timeOriginMs: parts.timeOriginMs,
    ...(parts.timeBoundsMs ? { timeBoundsMs: parts.timeBoundsMs } : {}),
    componentType: parts.grid.type,
    range,
  };
}

/**
 * The volume with `range` taken from its frames when first asked for. A pass over every voxel
 * costs as much as decoding them, and loading an image asks only for the central slice's
 * extremes (level window, binary check). Spreading such a volume (`{ ...v }`) would take the
 * range, so derive from it with `withoutRange`.
 */
export function withLazyRange<T extends Omit<Volume, 'range'>>(fields: T): T & Pick<Volume, 'range'> {
  let range: [number, number] | undefined;
  return Object.defineProperty(fields, 'range', {
    get: (): [number, number] => (range ??= valueRange(fields.frames)),
    set: (value: [number, number]) => {
      range = value;
    },
    enumerable: true,
    configurable: true,
  }) as T & Pick<Volume, 'range'>;
}

/** A volume's fields but its range, without taking a range not yet taken. */
export function withoutRange(volume: Volume): Omit<Volume, 'range'> {
  const descriptors = Object.getOwnPropertyDescriptors(volume) as Partial<PropertyDescriptorMap>;
  delete descriptors['range'];
  return Object.defineProperties({}, descriptors as PropertyDescriptorMap) as Omit<Volume, 'range'>;
}

/** Minimum and maximum over all frames, NaN samples left out; [0, 0] when there is no number. */
export function valueRange(frames: readonly Float32Array[]): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const frame of frames) {
    for (let i = 0; i < frame.length; i++) {
      const v = frame[i]!;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return min <= max ? [min, max] : [0, 0];
}
