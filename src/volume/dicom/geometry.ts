import type { Mat3, Vec3 } from '../volume.js';
import { numbers } from './data-set.js';
import { cross, dot } from './blocks.js';
import { TAG, type SliceHeader } from './slice-header.js';

export interface DicomGeometry {
  origin: Vec3;
  spacing: Vec3;
  direction: Mat3;
  /** Which tag the in-plane spacing came from (MITK's `PixelSpacingInterpretation`). */
  spacingSource: 'PixelSpacing' | 'ImagerPixelSpacing' | 'none';
}

/**
 * The geometry ITK's ImageSeriesReader and MITK give a block: origin at the first slice's
 * ImagePositionPatient, direction from its orientation made orthonormal (GDCMImageIO), z
 * spacing |last − first| / (N − 1), in-plane spacing from PixelSpacing with value [0] (between
 * rows) as y and value [1] (between columns) as x (`DICOMStringToSpacing`). LPS, no flips.
 */
export function blockGeometry(slices: readonly SliceHeader[]): DicomGeometry {
  const first = slices[0]!;
  const last = slices.at(-1)!;
  const o = first.orientation ?? [1, 0, 0, 0, 1, 0];
  const n = unit(cross(o.slice(0, 3), o.slice(3, 6)));
  const row = unit(cross(o.slice(3, 6), n));
  const col = unit(cross(n, row));
  const direction: Mat3 = [row[0], col[0], n[0], row[1], col[1], n[1], row[2], col[2], n[2]];
  const pixel = numbers(first.ds, TAG.pixelSpacing);
  const imager = numbers(first.ds, TAG.imagerPixelSpacing);
  const given = pixel?.length === 2 ? pixel : imager?.length === 2 ? imager : undefined;
  const sane = (v: number): number => (v < 2.2e-14 || v > 1000 ? 1 : v);
  const x = given ? sane(given[1]!) : 1;
  const y = given ? sane(given[0]!) : 1;
  let z: number;
  if (slices.length > 1 && first.position !== undefined && last.position !== undefined) {
    const d = [
      last.position[0] - first.position[0],
      last.position[1] - first.position[1],
      last.position[2] - first.position[2],
    ];
    z = Math.sqrt(dot(d, d)) / (slices.length - 1);
  } else {
    z = Math.abs(
      numbers(first.ds, TAG.spacingBetweenSlices)?.[0] ??
        (first.frames > 1 ? (numbers(first.ds, TAG.sliceThickness)?.[0] ?? 1) : 1),
    );
  }
  if (!(z > 0)) z = 1;
  return {
    origin: first.position ? [...first.position] : [0, 0, 0],
    spacing: [x, y, z],
    direction,
    spacingSource: pixel?.length === 2 ? 'PixelSpacing' : imager?.length === 2 ? 'ImagerPixelSpacing' : 'none',
  };
}

function unit(v: readonly number[]): [number, number, number] {
  const len = Math.hypot(v[0]!, v[1]!, v[2]!) || 1;
  return [v[0]! / len, v[1]! / len, v[2]! / len];
}
