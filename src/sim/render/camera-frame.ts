import type { Vec3 } from '../../volume/volume.js';
import type { CameraState } from './types.js';

/** Screen axes of a camera, with VTK's conventions: right = dop × up. */
export interface CameraFrame {
  dop: Vec3;
  up: Vec3;
  right: Vec3;
}

export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
export const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];

export function normalize(a: Vec3): Vec3 {
  const n = Math.hypot(a[0], a[1], a[2]);
  return n > 0 ? [a[0] / n, a[1] / n, a[2] / n] : [0, 0, 1];
}

export function cameraFrame(camera: CameraState): CameraFrame {
  const dop = normalize(sub(camera.focal_point, camera.position));
  // A view-up that is not perpendicular to the direction of projection is straightened, as VTK does.
  let up = sub(camera.view_up, scale(dop, dot(camera.view_up, dop)));
  if (Math.hypot(up[0], up[1], up[2]) < 1e-12) up = Math.abs(dop[2]) < 0.9 ? [0, 0, 1] : [0, -1, 0];
  up = normalize(up);
  return { dop, up, right: normalize(cross(dop, up)) };
}
