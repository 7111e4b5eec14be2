import type { Mat3, Vec3 } from '../volume.js';
import { numbers } from './data-set.js';
import { cross, dot } from './vec3.js';
import { frameGeometry, isMultiFrameObject } from './multi-frame.js';
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
  if (slices.length === 1 && isMultiFrameObject(first.ds, first.frames)) return multiFrameGeometry(first);
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

/**
 * A multi-frame file alone: GDCM's origin, directions and spacing (multi-frame.ts), then what ITK
 * and MITK do with them. GDCMImageIO sets a z spacing below 1e-6 to 1 and makes the directions
 * orthonormal; ImageFileReader turns a negative spacing positive and flips that axis' direction
 * (frames stored against the normal keep their order and point the other way); MITK's
 * `FixupSpacing` then puts the top-level PixelSpacing (else ImagerPixelSpacing) in-plane when
 * the file has one, and keeps GDCM's otherwise unless it is not within (eps, 1000].
 */
function multiFrameGeometry(h: SliceHeader): DicomGeometry {
  const gdcm = frameGeometry(h.ds, h.frames);
  const o = gdcm.cosines;
  const n = unit(cross(o.slice(0, 3), o.slice(3, 6)));
  const axes = [unit(cross(o.slice(3, 6), n)), [0, 0, 0], n];
  axes[1] = cross(n, axes[0]!);
  const spacing = [...gdcm.spacing] as [number, number, number];
  if (Math.abs(spacing[2]) < 1e-6) spacing[2] = 1;
  for (let i = 0; i < 3; i++)
    if (spacing[i]! < 0) {
      spacing[i] = -spacing[i]!;
      axes[i] = axes[i]!.map((v) => -v);
    }
  const pixel = numbers(h.ds, TAG.pixelSpacing);
  const imager = numbers(h.ds, TAG.imagerPixelSpacing);
  const given =
    pixel !== undefined && pixel.length > 1 ? pixel : imager !== undefined && imager.length > 1 ? imager : undefined;
  if (given) {
    spacing[0] = given[1]!;
    spacing[1] = given[0]!;
  } else if (!(spacing[0] >= 2.2e-14 && spacing[0] <= 1000 && spacing[1] >= 2.2e-14 && spacing[1] <= 1000)) {
    spacing[0] = 1;
    spacing[1] = 1;
  }
  for (let i = 0; i < 3; i++) if (!(spacing[i]! >= 2.2e-14)) spacing[i] = 1;
  const [row, col, slice] = axes as [number[], number[], number[]];
  return {
    origin: gdcm.origin,
    spacing,
    direction: [row[0]!, col[0]!, slice[0]!, row[1]!, col[1]!, slice[1]!, row[2]!, col[2]!, slice[2]!],
    spacingSource: pixel?.length === 2 ? 'PixelSpacing' : imager?.length === 2 ? 'ImagerPixelSpacing' : 'none',
  };
}

function unit(v: readonly number[]): [number, number, number] {
  const len = Math.hypot(v[0]!, v[1]!, v[2]!) || 1;
  return [v[0]! / len, v[1]! / len, v[2]! / len];
}
