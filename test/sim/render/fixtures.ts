import type { CameraState, RenderLayer, Rgb, RgbaImage, View2D, View3D } from '../../../src/sim/render/types.js';
import { LABEL_DEFAULTS, type Label } from '../../../src/volume/segmentation.js';
import { segmentationVolume, IDENTITY, type Mat3, type Vec3, type Volume } from '../../../src/volume/volume.js';

/** A label of MITK's defaults with the value and settings given. */
export function label(value: number, settings: Partial<Omit<Label, 'value'>> = {}): Label {
  return { ...LABEL_DEFAULTS, extra: {}, ...settings, value };
}

/**
 * A small volume whose voxel values come from `value(i, j, k, t)`; with `labels`, a MITK
 * segmentation of one group holding those values.
 */
export function makeVolume(options: {
  dims: Vec3;
  spacing?: Vec3;
  origin?: Vec3;
  direction?: Mat3;
  timeSteps?: number;
  labels?: Label[];
  value: (i: number, j: number, k: number, t: number) => number;
}): Volume {
  const [nx, ny, nz] = options.dims;
  const frames: Float32Array[] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (let t = 0; t < (options.timeSteps ?? 1); t++) {
    const frame = new Float32Array(nx * ny * nz);
    for (let k = 0; k < nz; k++) {
      for (let j = 0; j < ny; j++) {
        for (let i = 0; i < nx; i++) {
          const v = options.value(i, j, k, t);
          frame[i + nx * (j + ny * k)] = v;
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    frames.push(frame);
  }
  const grid = {
    dims: options.dims,
    spacing: options.spacing ?? ([1, 1, 1] as Vec3),
    origin: options.origin ?? ([0, 0, 0] as Vec3),
    direction: options.direction ?? IDENTITY,
    timeStepMs: 100,
    timeOriginMs: 0,
  };
  if (options.labels)
    return segmentationVolume(grid, {
      groups: [{ name: '', labels: options.labels, extra: {}, frames }],
      unlabeledLock: false,
    });
  return { ...grid, frames, componentType: 'int16', range: [lo, hi] };
}

/** The segmentation with one more label group on top: `value` gives the group's label values, `labels` its labels. */
export function withGroup(volume: Volume, labels: Label[], value: (i: number, j: number, k: number) => number): Volume {
  const [nx, ny, nz] = volume.dims;
  const frame = new Float32Array(nx * ny * nz);
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) frame[i + nx * (j + ny * k)] = value(i, j, k);
  const segmentation = volume.segmentation!;
  return segmentationVolume(volume, {
    ...segmentation,
    groups: [...segmentation.groups, { name: '', labels, extra: {}, frames: [frame] }],
  });
}

/** A node as a window draws it; grey images map 0..1000 to black..white unless told otherwise. */
export function layerOf(volume: Volume, extra: Partial<RenderLayer> = {}): RenderLayer {
  return {
    uid: 'node',
    volume,
    timeStep: 0,
    opacity: 1,
    color: null,
    levelWindow: { level: 500, window: 1000 },
    layer: 0,
    ...extra,
  };
}

/** The viewer's MITK conventions: direction of projection and view-up of each 2D window. */
export const FRAMES = {
  axial: { dop: [0, 0, 1] as Vec3, up: [0, -1, 0] as Vec3 },
  sagittal: { dop: [-1, 0, 0] as Vec3, up: [0, 0, 1] as Vec3 },
  coronal: { dop: [0, 1, 0] as Vec3, up: [0, 0, 1] as Vec3 },
};

/** MITK's crosshair colours, which the viewer passes: axial red, sagittal green, coronal blue. */
export const PLANE_COLORS: Record<keyof typeof FRAMES, Rgb> = {
  axial: [1, 0, 0],
  sagittal: [0, 1, 0],
  coronal: [0, 0, 1],
};

/**
 * A 2D window looking along `direction` at `focal` (also the slice plane's point), `size`
 * pixels square; with parallel_scale = size / 2 one pixel is one millimetre.
 */
export function view2d(
  direction: keyof typeof FRAMES,
  focal: Vec3,
  options: { size?: number; parallelScale?: number; camera?: Partial<CameraState> } = {},
): View2D {
  const size = options.size ?? 16;
  const { dop, up } = FRAMES[direction];
  return {
    kind: '2d',
    width: size,
    height: size,
    viewDirection: direction,
    planeNormal: dop,
    planePoint: focal,
    camera: {
      position: [focal[0] - dop[0] * 500, focal[1] - dop[1] * 500, focal[2] - dop[2] * 500],
      focal_point: focal,
      view_up: up,
      parallel_scale: options.parallelScale ?? size / 2,
      perspective_angle: null,
      ...options.camera,
    },
    crosshair: [],
    background: [0, 0, 0],
  };
}

/** A 3D window looking along `dop` at `focal` from `distance` millimetres away. */
export function view3d(
  focal: Vec3,
  dop: Vec3,
  up: Vec3,
  planes: View3D['planes'],
  bounds: View3D['bounds'],
  options: { size?: number; distance?: number; angle?: number } = {},
): View3D {
  const size = options.size ?? 64;
  const distance = options.distance ?? 60;
  return {
    kind: '3d',
    width: size,
    height: size,
    camera: {
      position: [focal[0] - dop[0] * distance, focal[1] - dop[1] * distance, focal[2] - dop[2] * distance],
      focal_point: focal,
      view_up: up,
      parallel_scale: null,
      perspective_angle: options.angle ?? 30,
    },
    planes,
    bounds,
    background: [0, 0, 0],
  };
}

/** RGBA of one pixel. */
export function px(image: RgbaImage, x: number, y: number): number[] {
  const o = (y * image.width + x) * 4;
  return [...image.data.subarray(o, o + 4)];
}

/** Every pixel (x, y) for which `test` holds, row by row. */
export function pixelsWhere(image: RgbaImage, test: (rgba: number[]) => boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) if (test(px(image, x, y))) out.push([x, y]);
  return out;
}

/** Sorted distinct values of one coordinate of a pixel list. */
export function distinct(points: Array<[number, number]>, axis: 0 | 1): number[] {
  return [...new Set(points.map((p) => p[axis]))].sort((a, b) => a - b);
}

export const isColor =
  (r: number, g: number, b: number) =>
  (rgba: number[]): boolean =>
    rgba[0] === r && rgba[1] === g && rgba[2] === b;
