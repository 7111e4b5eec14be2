import type { ViewDirection } from '../render/types.js';
import { worldAxisSpacing, worldBounds, type Vec3, type Volume } from '../../volume/volume.js';

export interface Bounds {
  min: Vec3;
  max: Vec3;
}

/**
 * What a reinit fits every window to: a world-axis-aligned box, the slice spacing along each
 * world axis and the slice count along each axis.
 */
export interface NavigationGeometry {
  bounds: Bounds;
  spacing: Vec3;
  steps: Vec3;
}

/** Orientation of a 2D window: the world axis it steps through and its camera axes. */
export interface DirectionFrame {
  axis: 0 | 1 | 2;
  /** Direction of projection (focal point minus position, normalised). */
  dop: Vec3;
  viewUp: Vec3;
}

/**
 * MITK's 2D camera conventions in LPS; the renderer relies on them so that patient left is on
 * screen right in axial and coronal windows and anterior is up in axial. `original` follows
 * the image axes; for the world-aligned navigation geometry that is the axial frame.
 */
const FRAMES: Record<ViewDirection, DirectionFrame> = {
  axial: { axis: 2, dop: [0, 0, 1], viewUp: [0, -1, 0] },
  sagittal: { axis: 0, dop: [-1, 0, 0], viewUp: [0, 0, 1] },
  coronal: { axis: 1, dop: [0, 1, 0], viewUp: [0, 0, 1] },
  original: { axis: 2, dop: [0, 0, 1], viewUp: [0, -1, 0] },
};

export function frameOf(direction: ViewDirection): DirectionFrame {
  return FRAMES[direction];
}

/** A volume a reinit can fit to: it has at least one frame and no empty axis. */
export function hasGeometry(v: Volume): boolean {
  return v.frames.length > 0 && v.dims.every((d) => d > 0) && v.spacing.every((s) => s > 0);
}

/**
 * The combined geometry of some volumes: the union of their bounds, per world axis the
 * smallest spacing any of them has along it, and the slice count that spacing gives.
 */
export function navigationGeometry(volumes: readonly Volume[]): NavigationGeometry | null {
  if (volumes.length === 0) return null;
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  const spacing: Vec3 = [Infinity, Infinity, Infinity];
  for (const v of volumes) {
    const b = worldBounds(v);
    const s = worldAxisSpacing(v);
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a]!, b.min[a]!);
      max[a] = Math.max(max[a]!, b.max[a]!);
      spacing[a] = Math.min(spacing[a]!, s[a]!);
    }
  }
  const steps = [0, 1, 2].map((a) => Math.max(1, Math.round((max[a]! - min[a]!) / spacing[a]!))) as Vec3;
  return { bounds: { min, max }, spacing, steps };
}

export function centre(b: Bounds): Vec3 {
  return [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2];
}

export function stepCount(nav: NavigationGeometry | null, direction: ViewDirection): number {
  return nav ? nav.steps[frameOf(direction).axis] : 0;
}

export function clampStep(nav: NavigationGeometry | null, direction: ViewDirection, step: number): number {
  const n = stepCount(nav, direction);
  return n === 0 ? 0 : Math.min(Math.max(0, Math.floor(step)), n - 1);
}

/** Where a reinit puts a navigator: the middle slice (a 32-slice volume gives step 16). */
export function middleStep(nav: NavigationGeometry | null, direction: ViewDirection): number {
  return Math.floor(stepCount(nav, direction) / 2);
}

/**
 * Slab index (counted along the world axis) of a step. Axial steps count from the top, as in
 * MITK, where the axial planes are built top-down; sagittal and coronal count along the axis.
 */
function slabOf(nav: NavigationGeometry, direction: ViewDirection, step: number): number {
  const n = stepCount(nav, direction);
  return frameOf(direction).axis === 2 ? n - 1 - step : step;
}

/** World coordinate along the window's axis of the middle of the slab a step shows. */
export function slabCentre(nav: NavigationGeometry, direction: ViewDirection, step: number): number {
  const a = frameOf(direction).axis;
  return nav.bounds.min[a] + (slabOf(nav, direction, step) + 0.5) * nav.spacing[a];
}

/**
 * The `position` a selected-slice answer reports: the centre of the slice plane geometry. In
 * plane that is the centre of the bounds; along the axis MITK's plane sits on the slab's lower
 * face, half a voxel below the voxel centre (NB06: axial step 16 of 32 → z 36.25).
 */
export function planePosition(nav: NavigationGeometry, direction: ViewDirection, step: number): Vec3 {
  const a = frameOf(direction).axis;
  const p = centre(nav.bounds);
  p[a] = nav.bounds.min[a] + slabOf(nav, direction, step) * nav.spacing[a];
  return p;
}

/**
 * The step whose slab contains a world coordinate (the nearest slice). Past the last slice it is
 * the last one; before the first slice's side of the stack it is null and the navigator stays
 * where it is: MITK's SliceNavigationHelper::SelectSliceByPoint selects no slice for a point
 * behind the first plane, and Stepper::SetPos clamps one past the last.
 */
export function stepAt(nav: NavigationGeometry, direction: ViewDirection, coordinate: number): number | null {
  const a = frameOf(direction).axis;
  const n = nav.steps[a];
  // Step 0 is the top slab of an axial stack and the lowest slab of the others.
  if (a === 2 ? coordinate > nav.bounds.max[a] : coordinate < nav.bounds.min[a]) return null;
  const slab = Math.min(Math.max(0, Math.floor((coordinate - nav.bounds.min[a]) / nav.spacing[a])), n - 1);
  return a === 2 ? n - 1 - slab : slab;
}
