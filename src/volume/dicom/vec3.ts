/** Vector arithmetic on three-component positions and directions, as DICOM geometry needs it. */
type V = readonly number[];
type Out = [number, number, number];

export const cross = (a: V, b: V): Out => [
  a[1]! * b[2]! - a[2]! * b[1]!,
  a[2]! * b[0]! - a[0]! * b[2]!,
  a[0]! * b[1]! - a[1]! * b[0]!,
];
export const dot = (a: V, b: V): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
export const sub = (a: V, b: V): Out => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
export const add = (a: V, b: V): Out => [a[0]! + b[0]!, a[1]! + b[1]!, a[2]! + b[2]!];
export const scale = (a: V, k: number): Out => [a[0]! * k, a[1]! * k, a[2]! * k];
export const norm = (a: V): number => Math.hypot(a[0]!, a[1]!, a[2]!);
