import { cross, dot, norm } from './vec3.js';

/**
 * A gantry tilt as MITK measures it (`GantryTiltInformation`): how far one slice origin lies off
 * the line through another along the slice normal, split into a shift along the row direction,
 * one along the column ("up") direction and one along the normal.
 */
export interface GantryTilt {
  /** Signed offset of the first origin from the second along the column direction (mm). */
  shiftUp: number;
  /** Offsets along the row direction and the normal (mm, not signed). */
  shiftRight: number;
  shiftNormal: number;
  /** How many slice gaps lie between the two origins. */
  slicesApart: number;
}

/** Below this offset (mm) two origins count as on one normal; mitk::eps would be too strict. */
const TILT_EPSILON = 0.001;

export function gantryTilt(
  origin1: readonly number[],
  origin2: readonly number[],
  orientation: readonly number[],
  slicesApart: number,
): GantryTilt {
  const right = orientation.slice(0, 3);
  const up = orientation.slice(3, 6);
  const normal = cross(right, up);
  const d = [origin1[0]! - origin2[0]!, origin1[1]! - origin2[1]!, origin1[2]! - origin2[2]!];
  const none = { shiftUp: 0, shiftRight: 0, shiftNormal: 0, slicesApart };
  const normalLength = norm(normal);
  if (normalLength === 0) return none;
  // Distance of origin1 from the line through origin2 along the normal.
  const c = cross(normal, d);
  const distance = Math.hypot(c[0]!, c[1]!, c[2]!) / normalLength;
  if (!(distance > TILT_EPSILON)) return none;
  return {
    shiftUp: dot(d, up) / norm(up),
    shiftRight: Math.abs(dot(d, right)) / norm(right),
    shiftNormal: Math.abs(dot(d, normal)) / normalLength,
    slicesApart,
  };
}

/** Any in-plane offset between slices (`IsSheared`). */
export function isSheared(t: GantryTilt): boolean {
  return t.slicesApart > 0 && (t.shiftRight > TILT_EPSILON || Math.abs(t.shiftUp) > TILT_EPSILON);
}

/** An offset along the column direction only: what MITK corrects by shearing (`IsRegularGantryTilt`). */
export function isRegularTilt(t: GantryTilt): boolean {
  return t.slicesApart > 0 && t.shiftRight < TILT_EPSILON && Math.abs(t.shiftUp) > TILT_EPSILON;
}
