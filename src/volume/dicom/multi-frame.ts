import type { DataSet } from 'dicom-parser';
import { numbers, str } from './data-set.js';
import { cross, dot, norm, scale } from './vec3.js';

/**
 * A multi-frame file loaded alone, as MITK loads it: ITK's GDCMImageIO asks GDCM's
 * `ImageHelper` for origin, spacing, directions and rescale, and GDCM takes them from the
 * functional groups for the enhanced SOP classes and from top-level attributes for the others
 * (multi-frame MR, NM, XA/XRF, CT). Every rule here names the GDCM function it follows.
 */

const SHARED = 'x52009229';
const PER_FRAME = 'x52009230';
const PLANE_POSITION = 'x00209113';
const PLANE_ORIENTATION = 'x00209116';
const PIXEL_MEASURES = 'x00289110';
const PIXEL_VALUE_TRANSFORMATION = 'x00289145';
const POSITION = 'x00200032';
const ORIENTATION = 'x00200037';
const PIXEL_SPACING = 'x00280030';
const IMAGER_PIXEL_SPACING = 'x00181164';
const SPACING_BETWEEN_SLICES = 'x00180088';
const INTERCEPT = 'x00281052';
const SLOPE = 'x00281053';
const DETECTOR_INFORMATION = 'x00540022';
const FRAME_INCREMENT_POINTER = 'x00280009';
const FRAME_TIME = 'x00181063';

const S = '1.2.840.10008.5.1.4.1.1.';
/** Enhanced classes whose origin and spacing GDCM reads from the functional groups (`GetOriginValue`, `GetSpacingValue`). */
const GROUP_GEOMETRY = new Set(
  [
    '2.1', // Enhanced CT
    '4.1', // Enhanced MR
    '4.3', // Enhanced MR Color
    '130', // Enhanced PET
    '77.1.5.4', // Ophthalmic Tomography
    '7.1',
    '7.2',
    '7.3',
    '7.4', // multi-frame Secondary Capture
    '13.1.1',
    '13.1.2', // X-Ray 3D angiographic, craniofacial
    '66.4', // Segmentation
    '14.1',
    '14.2', // IVOCT
    '13.1.3', // Breast Tomosynthesis
    '13.1.4',
    '13.1.5', // Breast Projection X-Ray
    '2.2', // Legacy Converted Enhanced CT
    '4.4', // Legacy Converted Enhanced MR
    '128.1', // Legacy Converted Enhanced PET
  ].map((s) => S + s),
);
/** `GetDirectionCosinesValue` lists the same classes but Ophthalmic Tomography. */
const GROUP_DIRECTIONS = new Set([...GROUP_GEOMETRY].filter((uid) => uid !== `${S}77.1.5.4`));
/** `GetRescaleInterceptSlopeValue` reads the groups for fewer classes (no colour MR, SC, IVOCT, OCT). */
const GROUP_RESCALE = new Set(
  ['2.1', '4.1', '130', '13.1.1', '13.1.2', '66.4', '13.1.3', '13.1.4', '13.1.5', '2.2', '4.4', '128.1'].map(
    (s) => S + s,
  ),
);
const NM = `${S}20`;
/** `GetSpacingTagFromMediaStorage`: classes whose in-plane spacing is ImagerPixelSpacing. */
const IMAGER_SPACING = new Set(
  ['1', '1.1', '1.1.1', '1.2', '1.2.1', '1.3', '1.3.1', '12.1', '12.2', '12.3'].map((s) => S + s),
);
/** `GetSpacingTagFromMediaStorage`: classes whose in-plane spacing is PixelSpacing. */
const PIXEL_SPACING_CLASSES = new Set(
  ['2', '4', '481.2', '20', '128', '77.1.4', '77.1.2', '14.1', '14.2'].map((s) => S + s).concat(['1.2.840.113619.4.2']),
);
/** `GetZSpacingTagFromMediaStorage`: classes whose z spacing is SpacingBetweenSlices (MR, NM, GE MR, Enhanced US volume). */
const Z_FROM_SPACING_BETWEEN = new Set([`${S}4`, NM, '1.2.840.113619.4.2', `${S}6.2`]);
/** Ultrasound and other classes for which ITK's GDCMImageIO sets z spacing 1 itself (`InternalReadImageInformation`). */
const Z_ONE_IN_ITK = new Set(['6.1', '3.1', '6', '3', '77.1.1.1'].map((s) => S + s).concat(['1.2.840.10008.5.1.1.29']));
const RT_DOSE = `${S}481.2`;

/** The SOP class GDCM goes by (`MediaStorage::SetFromFile`): the data set's, else the file meta header's. */
export function sopClassOf(ds: DataSet): string | undefined {
  return str(ds, 'x00080016') ?? str(ds, 'x00020002');
}

/** Whether GDCM reads this object's rescale from its functional groups. */
export function rescaleFromGroups(ds: DataSet): boolean {
  return GROUP_RESCALE.has(sopClassOf(ds) ?? '');
}

/**
 * `GetInterceptSlopeValueFromSequence`: the Pixel Value Transformation of the shared groups,
 * else of the first frame's. Both values must be there. A per-frame rescale that differs from
 * frame to frame is not followed: the first frame's applies to every frame, as in GDCM.
 */
export function groupRescale(ds: DataSet): { intercept: number; slope: number } | undefined {
  for (const group of [SHARED, PER_FRAME]) {
    const item = macro(ds, group, PIXEL_VALUE_TRANSFORMATION);
    if (item === undefined) continue;
    const intercept = numbers(item, INTERCEPT)?.[0];
    const slope = numbers(item, SLOPE)?.[0];
    if (intercept !== undefined && slope !== undefined) return { intercept, slope };
  }
  return undefined;
}

export interface FrameGeometry {
  origin: [number, number, number];
  /** Row then column direction, as GDCM gives them (before ITK makes them orthonormal). */
  cosines: [number, number, number, number, number, number];
  /** x, y, z as GDCM computes them; z may be negative (frames stored against the normal). */
  spacing: [number, number, number];
}

/** Origin, direction cosines and spacing GDCM gives a multi-frame file. */
export function frameGeometry(ds: DataSet, frames: number): FrameGeometry {
  const sop = sopClassOf(ds) ?? '';
  return { origin: origin(ds, sop), cosines: cosines(ds, sop), spacing: spacing(ds, sop, frames) };
}

/** The first item's data set of a functional group macro (`group` → item 1 → `sequence` → item 1). */
function macro(ds: DataSet, group: string, sequence: string): DataSet | undefined {
  const outer = ds.elements[group]?.items?.[0]?.dataSet;
  return outer?.elements[sequence]?.items?.[0]?.dataSet;
}

function triple(ds: DataSet | undefined, tag: string): [number, number, number] | undefined {
  const v = ds === undefined ? undefined : numbers(ds, tag);
  return v !== undefined && v.length >= 3 ? [v[0]!, v[1]!, v[2]!] : undefined;
}

/** `GetOriginValue`. */
function origin(ds: DataSet, sop: string): [number, number, number] {
  if (GROUP_GEOMETRY.has(sop)) {
    for (const group of [SHARED, PER_FRAME]) {
      const position = triple(macro(ds, group, PLANE_POSITION), POSITION);
      if (position !== undefined) return position;
    }
    return [0, 0, 0];
  }
  if (sop === NM) return triple(ds.elements[DETECTOR_INFORMATION]?.items?.[0]?.dataSet, POSITION) ?? [0, 0, 0];
  if (sop === `${S}7`) return [0, 0, 0];
  return triple(ds, POSITION) ?? [0, 0, 0];
}

const IDENTITY: [number, number, number, number, number, number] = [1, 0, 0, 0, 1, 0];

/** `GetDirectionCosinesFromDataSet`: the orientation, normalised when it is not; undefined when unusable. */
function orientationOf(ds: DataSet | undefined): [number, number, number, number, number, number] | undefined {
  const v = ds === undefined ? undefined : numbers(ds, ORIENTATION);
  if (v === undefined || v.length < 6) return undefined;
  const row = v.slice(0, 3);
  const col = v.slice(3, 6);
  const valid = (a: number[], b: number[]): boolean =>
    Math.abs(norm(a) - 1) <= 1e-3 && Math.abs(norm(b) - 1) <= 1e-3 && Math.abs(dot(a, b)) <= 1e-3;
  if (valid(row, col)) return v.slice(0, 6) as [number, number, number, number, number, number];
  const r = scale(row, 1 / norm(row));
  const c = scale(col, 1 / norm(col));
  return valid(r, c) ? ([...r, ...c] as [number, number, number, number, number, number]) : undefined;
}

/** `GetDirectionCosinesValue`. */
function cosines(ds: DataSet, sop: string): [number, number, number, number, number, number] {
  if (GROUP_DIRECTIONS.has(sop)) {
    for (const group of [SHARED, PER_FRAME]) {
      const item = macro(ds, group, PLANE_ORIENTATION);
      if (item === undefined) continue;
      const v = numbers(item, ORIENTATION);
      if (v !== undefined && v.length >= 6) return v.slice(0, 6) as [number, number, number, number, number, number];
    }
    return orientationOf(ds) ?? IDENTITY;
  }
  if (sop === NM && ds.elements[DETECTOR_INFORMATION]?.items?.[0] !== undefined)
    return orientationOf(ds.elements[DETECTOR_INFORMATION].items[0].dataSet) ?? IDENTITY;
  if (sop === `${S}7`) return IDENTITY;
  return orientationOf(ds) ?? IDENTITY;
}

/** `GetSpacingValue`. */
function spacing(ds: DataSet, sop: string, frames: number): [number, number, number] {
  if (GROUP_GEOMETRY.has(sop)) {
    // GetSpacingValueFromSequence, shared then per-frame: the in-plane spacing of that group, and
    // the z spacing from the frames' positions; where either fails GDCM gives 1, 1, 1.
    for (const group of [SHARED, PER_FRAME]) {
      const measures = macro(ds, group, PIXEL_MEASURES);
      const ps = measures === undefined ? undefined : numbers(measures, PIXEL_SPACING);
      if (ps === undefined || ps.length < 2) continue;
      const z = zSpacingFromPositions(ds);
      if (z === undefined) continue;
      return [ps[1]!, ps[0]!, z];
    }
    return [1, 1, 1];
  }
  const tag = IMAGER_SPACING.has(sop)
    ? IMAGER_PIXEL_SPACING
    : PIXEL_SPACING_CLASSES.has(sop)
      ? PIXEL_SPACING
      : undefined;
  const given = tag === undefined ? undefined : numbers(ds, tag);
  let xy: [number, number] = [1, 1];
  if (given !== undefined && given.length >= 2) xy = [given[1]! || 1, given[0]! || 1];
  else if (given !== undefined && given.length === 1) xy = [given[0]! || 1, given[0]! || 1];
  return [...xy, zSpacing(ds, sop, frames)];
}

/**
 * The z part of `GetSpacingValue` outside the enhanced classes: the class's z tag
 * (`GetZSpacingTagFromMediaStorage`) when the file has it, else the Frame Time the Frame
 * Increment Pointer points to (a cine's milliseconds per frame), else 1.
 */
function zSpacing(ds: DataSet, sop: string, frames: number): number {
  if (Z_ONE_IN_ITK.has(sop)) return 1;
  if (Z_FROM_SPACING_BETWEEN.has(sop) && ds.elements[SPACING_BETWEEN_SLICES] !== undefined)
    return numbers(ds, SPACING_BETWEEN_SLICES)?.[0] ?? 1;
  if (sop === RT_DOSE && ds.elements['x3004000c'] !== undefined) {
    const offsets = numbers(ds, 'x3004000c');
    return offsets !== undefined && offsets.length >= 2 ? offsets[1]! - offsets[0]! : 1;
  }
  const pointer = ds.elements[FRAME_INCREMENT_POINTER];
  if (pointer === undefined || pointer.length !== 4) return 1;
  const target = `x${hex(ds.uint16(FRAME_INCREMENT_POINTER, 0)!)}${hex(ds.uint16(FRAME_INCREMENT_POINTER, 1)!)}`;
  if (target !== FRAME_TIME || ds.elements[FRAME_TIME] === undefined) return 1;
  return frames > 1 ? (numbers(ds, FRAME_TIME)?.[0] ?? 1) : 1;
}

const hex = (n: number): string => n.toString(16).padStart(4, '0');

/**
 * `ComputeZSpacingFromIPP`: the mean distance between consecutive frames along the normal of
 * the orientation, signed (negative when frames are stored against the normal); undefined
 * (GDCM gives up) when a frame lacks a position or a gap leaves the mean by more than 0.001.
 * Equal positions throughout are a time series, spacing 1. One frame: the shared Pixel
 * Measures' SpacingBetweenSlices, else 1.
 */
function zSpacingFromPositions(ds: DataSet): number | undefined {
  const cos = macroCosines(ds, SHARED) ?? macroCosines(ds, PER_FRAME) ?? orientationOf(ds) ?? IDENTITY;
  const items = ds.elements[PER_FRAME]?.items;
  if (items === undefined) return undefined;
  if (items.length <= 1) {
    const measures = macro(ds, SHARED, PIXEL_MEASURES);
    return (measures && numbers(measures, SPACING_BETWEEN_SLICES)?.[0]) ?? 1;
  }
  const n = cross(cos.slice(0, 3), cos.slice(3, 6));
  const normal = scale(n, 1 / (norm(n) || 1));
  let distances: number[] = [];
  for (const item of items) {
    const position = triple(item.dataSet?.elements[PLANE_POSITION]?.items?.[0]?.dataSet, POSITION);
    if (position === undefined) return undefined;
    distances.push(dot(normal, position));
  }
  // Repeated positions (time steps of one stack) count once when the first is the smallest.
  const unique = [...new Set(distances)].sort((a, b) => a - b);
  if (unique.length !== distances.length && distances[0] === unique[0]) distances = unique;
  const count = distances.length;
  // Every frame at one position: GDCM's mean is 0 here; the spacing ends as 1 (gdcminfo prints
  // 1, and ITK's GDCMImageIO turns a spacing below 1e-6 into 1).
  if (count < 2) return 0;
  // GDCM sums the gaps one by one; the same sum in the same order gives the same double.
  let sum = 0;
  for (let i = 1; i < count; i++) sum += distances[i]! - distances[i - 1]!;
  const mean = sum / (count - 1);
  if (mean === 0) return 1;
  for (let i = 1; i < count; i++) if (Math.abs(distances[i]! - distances[i - 1]! - mean) > 1e-3) return undefined;
  return mean;
}

function macroCosines(ds: DataSet, group: string): number[] | undefined {
  const item = macro(ds, group, PLANE_ORIENTATION);
  const v = item === undefined ? undefined : numbers(item, ORIENTATION);
  return v !== undefined && v.length >= 6 ? v : undefined;
}

/** Whether the file's geometry is GDCM's for one file (not a series of single frames): a multi-frame or an enhanced object. */
export function isMultiFrameObject(ds: DataSet, frames: number): boolean {
  return frames > 1 || GROUP_GEOMETRY.has(sopClassOf(ds) ?? '');
}
