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
  const normalLength = Math.hypot(normal[0]!, normal[1]!, normal[2]!);
  if (normalLength === 0) return none;
  // Distance of origin1 from the line through origin2 along the normal.
  const c = cross(normal, d);
  const distance = Math.hypot(c[0]!, c[1]!, c[2]!) / normalLength;
  if (!(distance > TILT_EPSILON)) return none;
  return {
    shiftUp: dot(d, up) / Math.hypot(up[0]!, up[1]!, up[2]!),
    shiftRight: Math.abs(dot(d, right)) / Math.hypot(right[0]!, right[1]!, right[2]!),
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

function cross(a: readonly number[], b: readonly number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

function dot(a: readonly number[], b: readonly number[]): number {
  return a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
}
