import type { Camera } from '../api/wire.js';

/*
 * Where a point of the patient lands in a panel: the camera of the panel's window at the moment
 * of its capture, with VTK's conventions (right = direction of projection × view-up; a 2D
 * camera's parallel_scale is half the view's height in millimetres, a 3D camera's view angle its
 * vertical field of view). The workbench draws its window and then scales the grab to the
 * panel's size whatever the window's shape, so the window's aspect (width over height) is part
 * of the map: a panel narrower than its window shows the same millimetres in fewer pixels across.
 */

export type Vec3 = readonly [number, number, number];

/** The slice a 2D window shows: its unit normal, a point on its middle, and its thickness. */
export interface Slice {
  normal: Vec3;
  centre: Vec3;
  thickness: number;
}

/** What the figure knows of a panel's window when it was captured. */
export interface PanelView {
  camera: Camera;
  /** The window's own width over height, before the grab was scaled to the panel. */
  aspect: number;
  /** 2D windows only. */
  slice?: Slice;
}

/** A point in the panel's pixels (0..width, 0..height from its top-left corner). */
export interface PanelPoint {
  x: number;
  y: number;
  /** 3D windows: the distance in front of the camera; 2D windows: 0. */
  depth: number;
}

const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: Vec3, b: Vec3): [number, number, number] => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const times = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const unit = (a: Vec3): Vec3 => {
  const n = Math.hypot(a[0], a[1], a[2]);
  return n > 0 ? times(a, 1 / n) : [0, 0, 1];
};

export function distance(a: Vec3, b: Vec3): number {
  const d = sub(a, b);
  return Math.hypot(d[0], d[1], d[2]);
}

/** The camera's screen axes; a view-up not perpendicular to the view is straightened, as VTK does. */
export function screenAxes(camera: Camera): { dop: Vec3; up: Vec3; right: Vec3 } {
  const dop = unit(sub(camera.focal_point, camera.position));
  let up = sub(camera.view_up, times(dop, dot(camera.view_up, dop)));
  if (Math.hypot(up[0], up[1], up[2]) < 1e-12) up = Math.abs(dop[2]) < 0.9 ? [0, 0, 1] : [0, -1, 0];
  up = unit(up);
  return { dop, up, right: unit(cross(dop, up)) };
}

export function isPerspective(view: PanelView): boolean {
  return view.camera.parallel_scale === null;
}

/** The view's height in millimetres at a depth: 2·parallel_scale, or the frustum's height there. */
export function viewHeightMm(view: PanelView, depth: number): number {
  const { parallel_scale: scale, perspective_angle: angle } = view.camera;
  if (scale !== null) return 2 * scale;
  const degrees = angle !== null && angle > 0 && angle < 180 ? angle : 30;
  return 2 * depth * Math.tan((degrees * Math.PI) / 360);
}

/**
 * A world point in a panel of `width`×`height` pixels, or undefined when it lies behind a 3D
 * camera. A 2D window shows its slice: the point is taken along the slice's normal onto the
 * view plane, which is the point itself where the camera looks along the normal.
 */
export function projectPoint(view: PanelView, point: Vec3, width: number, height: number): PanelPoint | undefined {
  const { camera } = view;
  const axes = screenAxes(camera);
  let offset: Vec3;
  let depth = 0;
  if (isPerspective(view)) {
    const v = sub(point, camera.position);
    depth = dot(v, axes.dop);
    if (!(depth > 1e-9)) return undefined;
    offset = times(v, distance(camera.focal_point, camera.position) / depth);
    offset = sub(add(camera.position, offset), camera.focal_point);
  } else {
    const normal = view.slice?.normal ?? axes.dop;
    const along = dot(normal, axes.dop);
    const t = Math.abs(along) > 1e-9 ? dot(sub(camera.focal_point, point), axes.dop) / along : 0;
    offset = sub(add(point, times(normal, t)), camera.focal_point);
  }
  const heightMm = viewHeightMm(view, isPerspective(view) ? distance(camera.focal_point, camera.position) : 0);
  const mmPerPxY = heightMm / height;
  const mmPerPxX = (heightMm * view.aspect) / width;
  return {
    x: width / 2 + dot(offset, axes.right) / mmPerPxX,
    y: height / 2 - dot(offset, axes.up) / mmPerPxY,
    depth,
  };
}

/** Panel pixels per millimetre across and down at a point's depth (2D windows: everywhere). */
export function pixelsPerMm(view: PanelView, depth: number, width: number, height: number): { x: number; y: number } {
  const heightMm = viewHeightMm(view, depth);
  return { x: width / (heightMm * view.aspect), y: height / heightMm };
}

/** How far a point lies from the middle of a 2D window's slice, along its normal; 0 for 3D windows. */
export function offSlice(view: PanelView, point: Vec3): number {
  return view.slice ? Math.abs(dot(sub(point, view.slice.centre), view.slice.normal)) : 0;
}

/**
 * A camera looking at `at` with `zoom` times the magnification: a 2D camera moves within its
 * plane and narrows its parallel scale; a 3D camera stays where it is, turns to the point and
 * narrows its view angle, as a lens of longer focal length would.
 */
export function zoomedCamera(view: PanelView, at: Vec3, heightMm: number): Camera {
  const { camera } = view;
  const axes = screenAxes(camera);
  if (!isPerspective(view)) {
    const normal = view.slice?.normal ?? axes.dop;
    const inPlane = sub(sub(at, camera.focal_point), times(normal, dot(sub(at, camera.focal_point), normal)));
    return {
      ...camera,
      position: add(camera.position, inPlane),
      focal_point: add(camera.focal_point, inPlane),
      parallel_scale: heightMm / 2,
    };
  }
  const depth = distance(at, camera.position);
  return {
    ...camera,
    focal_point: [at[0], at[1], at[2]],
    perspective_angle: (2 * Math.atan(heightMm / (2 * depth)) * 180) / Math.PI,
  };
}
