import type { Mat3, Vec3 } from './volume.js';
import { unreadable } from './image-read-error.js';

/** Geometry every reader hands to the volume builder: LPS millimetres, voxel centres. */
export interface ImageGeometry {
  spacing: Vec3;
  origin: Vec3;
  direction: Mat3;
}

/** A point or direction given in RAS, in LPS: x and y change sign. */
export function rasToLps(v: Vec3): Vec3 {
  return [-v[0], -v[1], v[2]];
}

/**
 * Spacing and direction from the index axes' world vectors (spacing included), as NRRD's `space
 * directions`, a NIfTI affine's columns and MetaImage's spacing and matrix give them. A 2D image
 * gives two axes; its third axis is their normal with spacing 1, as ITK does for a 2D image
 * placed in 3D.
 */
export function geometryFromAxes(axes: readonly Vec3[], where: string): { spacing: Vec3; direction: Mat3 } {
  const units: Vec3[] = [];
  const spacing: Vec3 = [1, 1, 1];
  axes.forEach((axis, i) => {
    const length = Math.hypot(axis[0], axis[1], axis[2]);
    if (!Number.isFinite(length) || length === 0) {
      unreadable(`${where}: axis ${i} has no direction or zero spacing (${axis.join(', ')})`);
    }
    spacing[i] = length;
    units.push([axis[0] / length, axis[1] / length, axis[2] / length]);
  });
  if (units.length === 2) units.push(normalise(cross(units[0]!, units[1]!), where));
  if (units.length === 1) units.push([0, 1, 0], [0, 0, 1]);
  for (let a = 0; a < 3; a++) {
    for (let b = a + 1; b < 3; b++) {
      // Sheared grids cannot be sampled through an orthonormal direction matrix; tolerate the
      // rounding that real headers carry in their printed decimals.
      if (Math.abs(dot(units[a]!, units[b]!)) > 1e-3) {
        unreadable(`${where}: index axes ${a} and ${b} are not perpendicular; sheared grids are not supported`);
      }
    }
  }
  const [u, v, w] = units as [Vec3, Vec3, Vec3];
  return { spacing, direction: [u[0], v[0], w[0], u[1], v[1], w[1], u[2], v[2], w[2]] };
}

/** Column `j` of a direction matrix scaled by its spacing: the world step of index axis `j`. */
export function axisVector(direction: Mat3, spacing: Vec3, j: number): Vec3 {
  return [direction[j]! * spacing[j]!, direction[3 + j]! * spacing[j]!, direction[6 + j]! * spacing[j]!];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function normalise(v: Vec3, where: string): Vec3 {
  const length = Math.hypot(v[0], v[1], v[2]);
  if (length === 0) unreadable(`${where}: the two index axes are parallel`);
  return [v[0] / length, v[1] / length, v[2] / length];
}

/** Parses a finite number, or fails with a message naming the field. */
export function finiteNumber(text: string, where: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value))
    unreadable(`${where}: '${text.trim().slice(0, 40)}' is not a number`);
  return value;
}

/** Parses a positive integer size, or fails with a message naming the field. */
export function positiveInteger(text: string, where: string): number {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < 1)
    unreadable(`${where}: '${text.trim().slice(0, 40)}' is not a positive integer`);
  return value;
}
