import type { CameraPatch, StandardView } from '../../api/wire.js';
import type { CameraState, ViewDirection } from '../render/types.js';
import type { Vec3 } from '../../volume/volume.js';
import { centre, frameOf, slabCentre, type Bounds, type NavigationGeometry } from './navigation.js';
import { add, copy, cross, length, scale, sub } from './vec.js';

export const STANDARD_VIEWS = [
  'anterior',
  'posterior',
  'left',
  'right',
  'cranial',
  'caudal',
] as const satisfies readonly StandardView[];

/** A validated camera PUT: every field optional, at least one present. */
export type { CameraPatch, StandardView };

/** The 2D camera sits this far from its focal point along the plane normal, as MITK's does. */
export const CAMERA_DISTANCE_2D = 900000;
export const DEFAULT_PERSPECTIVE_ANGLE = 30;

/** Window size in pixels; the camera fit depends on its aspect ratio. */
export interface WindowSize {
  width: number;
  height: number;
}

/** Before any reinit there is nothing to fit; a unit box around the origin keeps cameras sane. */
const UNIT_BOX: Bounds = { min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] };

/** Extent of a box seen along a direction (the box is axis-aligned, the direction usually too). */
function extentAlong(b: Bounds, dir: Vec3): number {
  return (
    Math.abs(dir[0]) * (b.max[0] - b.min[0]) +
    Math.abs(dir[1]) * (b.max[1] - b.min[1]) +
    Math.abs(dir[2]) * (b.max[2] - b.min[2])
  );
}

/**
 * The camera a reinit gives a 2D window: looking along its direction at the in-plane centre
 * of the bounds on the current slice, zoomed so that the whole box fits the window.
 */
export function reset2D(
  direction: ViewDirection,
  nav: NavigationGeometry | null,
  step: number,
  size: WindowSize,
): CameraState {
  const f = frameOf(direction);
  const bounds = nav?.bounds ?? UNIT_BOX;
  const focal = centre(bounds);
  if (nav) focal[f.axis] = slabCentre(nav, direction, step);
  const right = cross(f.dop, f.viewUp);
  const aspect = size.width / size.height;
  const parallelScale = Math.max(extentAlong(bounds, f.viewUp) / 2, extentAlong(bounds, right) / (2 * aspect));
  return {
    position: sub(focal, scale(f.dop, CAMERA_DISTANCE_2D)),
    focal_point: focal,
    view_up: copy(f.viewUp),
    parallel_scale: parallelScale,
    perspective_angle: null,
  };
}

/** Direction of projection and view-up of each standard view (LPS: anterior is -y). */
const STANDARD_FRAMES: Record<StandardView, { dop: Vec3; viewUp: Vec3 }> = {
  anterior: { dop: [0, 1, 0], viewUp: [0, 0, 1] },
  posterior: { dop: [0, -1, 0], viewUp: [0, 0, 1] },
  left: { dop: [-1, 0, 0], viewUp: [0, 0, 1] },
  right: { dop: [1, 0, 0], viewUp: [0, 0, 1] },
  cranial: { dop: [0, 0, -1], viewUp: [0, -1, 0] },
  caudal: { dop: [0, 0, 1], viewUp: [0, -1, 0] },
};

/**
 * A 3D camera looking at the centre of the bounds from a standard view, far enough away that
 * the bounding sphere fills the narrower field of view (what vtkRenderer::ResetCamera does).
 */
export function standardView3D(
  view: StandardView,
  nav: NavigationGeometry | null,
  size: WindowSize,
  angle: number,
): CameraState {
  const bounds = nav?.bounds ?? UNIT_BOX;
  const focal = centre(bounds);
  const radius = length(sub(bounds.max, bounds.min)) / 2;
  const half = (angle * Math.PI) / 360;
  const aspect = size.width / size.height;
  const effective = aspect < 1 ? Math.atan(Math.tan(half) * aspect) : half;
  const distance = radius / Math.sin(effective);
  const f = STANDARD_FRAMES[view];
  return {
    position: sub(focal, scale(f.dop, distance)),
    focal_point: focal,
    view_up: copy(f.viewUp),
    parallel_scale: null,
    perspective_angle: angle,
  };
}

/** The camera a reinit gives the 3D window: from anterior, 30 degrees. */
export function reset3D(nav: NavigationGeometry | null, size: WindowSize): CameraState {
  return standardView3D('anterior', nav, size, DEFAULT_PERSPECTIVE_ANGLE);
}

/**
 * Keeps a 2D camera on its slice when the slice moves: the focal point and the position shift
 * along the window's axis by the same amount, so zoom, pan and orientation stay.
 */
export function followSlice(camera: CameraState, axis: 0 | 1 | 2, coordinate: number): CameraState {
  const shift: Vec3 = [0, 0, 0];
  shift[axis] = coordinate - camera.focal_point[axis];
  return { ...camera, position: add(camera.position, shift), focal_point: add(camera.focal_point, shift) };
}

/**
 * Applies a validated patch in the real server's order: standard view first (through the
 * camera controller, given here as `standardView`), then the raw pose fields, then the scalars.
 */
export function applyCameraPatch(
  camera: CameraState,
  patch: CameraPatch,
  standardView: (view: StandardView) => CameraState,
): CameraState {
  let next: CameraState = patch.standard_view ? standardView(patch.standard_view) : { ...camera };
  if (patch.position) next = { ...next, position: copy(patch.position) };
  if (patch.focal_point) next = { ...next, focal_point: copy(patch.focal_point) };
  if (patch.view_up) next = { ...next, view_up: copy(patch.view_up) };
  if (patch.parallel_scale !== undefined) next = { ...next, parallel_scale: patch.parallel_scale };
  if (patch.perspective_angle !== undefined) next = { ...next, perspective_angle: patch.perspective_angle };
  return next;
}

export function cloneCamera(c: CameraState): CameraState {
  return { ...c, position: copy(c.position), focal_point: copy(c.focal_point), view_up: copy(c.view_up) };
}
