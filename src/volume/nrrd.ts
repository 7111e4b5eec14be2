import type { Vec3, Volume } from './volume.js';
import { gunzip } from './compression.js';
import { geometryFromAxes, positiveInteger, type ImageGeometry } from './image-geometry.js';
import { unreadable } from './image-read-error.js';
import { assembleSegmentation, readMultilabelHeader, type MultilabelHeader } from './multilabel.js';
import { fieldList, parseNrrdHeader, parseVectors, type NrrdHeader } from './nrrd-header.js';
import { decodeFrames, decodeTextFrames, type ScalarType } from './scalar-types.js';
import {
  buildVolume,
  checkDataLength,
  checkGridSize,
  dataByteLength,
  valueRange,
  type Grid,
} from './volume-builder.js';

/** Keys MITK writes for a time geometry: its kind and the time bounds of every step, in ms. */
export const MITK_TIMEGEOMETRY_TYPE = 'org_mitk_timegeometry_type';
export const MITK_TIMEGEOMETRY_TIMEPOINTS = 'org_mitk_timegeometry_timepoints';

const WHERE = 'NRRD header';

const TYPE_ALIASES: Record<string, ScalarType> = {};
for (const [type, names] of Object.entries({
  int8: 'signed char, int8, int8_t',
  uint8: 'uchar, unsigned char, uint8, uint8_t',
  int16: 'short, short int, signed short, signed short int, int16, int16_t',
  uint16: 'ushort, unsigned short, unsigned short int, uint16, uint16_t',
  int32: 'int, signed int, int32, int32_t',
  uint32: 'uint, unsigned int, uint32, uint32_t',
  int64: 'longlong, long long, long long int, signed long long, signed long long int, int64, int64_t',
  uint64: 'ulonglong, unsigned long long, unsigned long long int, uint64, uint64_t',
  float32: 'float',
  float64: 'double',
} as Record<ScalarType, string>)) {
  for (const name of names.split(', ')) TYPE_ALIASES[name] = type as ScalarType;
}

/**
 * Sign of each world axis when turning a NRRD space into LPS. `scanner-xyz` and the
 * `3D-*-handed` spaces have no anatomical meaning; like ITK we take their coordinates as LPS.
 */
const SPACES: Record<string, { signs: Vec3; time: boolean }> = {};
for (const [names, signs] of [
  ['left-posterior-superior lps scanner-xyz 3d-right-handed 3d-left-handed', [1, 1, 1]],
  ['right-anterior-superior ras', [-1, -1, 1]],
  ['left-anterior-superior las', [1, -1, 1]],
] as [string, Vec3][]) {
  for (const name of names.split(' ')) {
    SPACES[name] = { signs, time: false };
    SPACES[name.length === 3 ? `${name}t` : `${name}-time`] = { signs, time: true };
  }
}

const DOMAIN_KINDS = new Set(['domain', 'space', 'time', 'none', '???']);

/** Everything the header says about the data, before the data is read. */
export interface NrrdLayout {
  grid: Grid;
  geometry: ImageGeometry;
  timeStepMs: number;
  timeOriginMs: number;
  /** MITK's time points when its steps are not evenly spaced (an ArbitraryTimeGeometry). */
  timeBoundsMs?: number[];
  encoding: 'raw' | 'gzip' | 'text';
  littleEndian: boolean;
  /** Name of the detached data file, as written in the header. */
  dataFile?: string;
  lineSkip: number;
  byteSkip: number;
  /** Present when the header marks a MITK multi-label segmentation. */
  multilabel?: MultilabelHeader;
  /** True for RGB pixels (a first axis of kind `RGB-color`), as ITK writes an RGB image. */
  rgb?: boolean;
  header: NrrdHeader;
}

export function readNrrdLayout(bytes: Uint8Array): NrrdLayout {
  const header = parseNrrdHeader(bytes);
  const f = header.fields;
  const required = (name: string): string => f.get(name) ?? unreadable(`${WHERE}: missing '${name}' field`);

  const typeName = required('type').toLowerCase();
  const type =
    TYPE_ALIASES[typeName] ??
    unreadable(`${WHERE}: type '${typeName}' is not supported (use an integer or floating-point scalar type)`);
  const dimension = positiveInteger(required('dimension'), `${WHERE}: 'dimension'`);
  if (dimension < 2 || dimension > 5)
    unreadable(`${WHERE}: dimension ${dimension} is not supported (2, 3 or 4: 2D, 3D or 3D+time)`);
  if (!f.has('sizes')) unreadable(`${WHERE}: missing 'sizes' field`);
  const sizes = fieldList(header, 'sizes', dimension)!.map((s, i) =>
    positiveInteger(s, `${WHERE}: 'sizes' entry ${i}`),
  );
  const kinds = fieldList(header, 'kinds', dimension)?.map((k) => k.toLowerCase());
  const multilabel = readMultilabelHeader(header.keyValues);

  // A segmentation's label groups lie along a first axis of a non-domain kind (`vector`), as
  // MITK writes a segmentation of several groups; any other image must be scalar.
  // An RGB image (ITK's RGBPixel of unsigned char or unsigned short, as MITK saves one) holds
  // its three samples on a first axis of kind RGB-color.
  const rgb = multilabel === undefined && kinds?.[0] === 'rgb-color';
  if (rgb && (sizes[0] !== 3 || (type !== 'uint8' && type !== 'uint16')))
    unreadable(
      `${WHERE}: RGB-color pixels of ${sizes[0]} ${typeName} samples are not supported (3 unsigned char or unsigned short samples are)`,
    );
  const groupAxis =
    rgb || (multilabel !== undefined && kinds?.[0] !== undefined && !DOMAIN_KINDS.has(kinds[0])) ? 0 : -1;
  const domainAxes = dimension - (groupAxis >= 0 ? 1 : 0);
  if (domainAxes < 2 || domainAxes > 4)
    unreadable(`${WHERE}: dimension ${dimension} is not supported (2, 3 or 4: 2D, 3D or 3D+time)`);
  // The time axis is the 4th domain axis, or the last one when `kinds` calls it time (2D+time).
  const timeAxis = domainAxes === 4 || kinds?.[dimension - 1] === 'time' ? dimension - 1 : -1;
  const spatialAxes = sizes.map((_, i) => i).filter((i) => i !== timeAxis && i !== groupAxis);
  spatialAxes.forEach((axis) => {
    const kind = kinds?.[axis];
    if (kind !== undefined && !DOMAIN_KINDS.has(kind) && sizes[axis]! > 1) {
      unreadable(
        `${WHERE}: axis ${axis} has kind '${kind}': multi-component pixels are not supported (save one scalar image per component)`,
      );
    }
  });
  const dims: Vec3 = [1, 1, 1];
  spatialAxes.forEach((axis, j) => (dims[j] = sizes[axis]!));
  const grid: Grid = {
    dims,
    timeSteps: timeAxis >= 0 ? sizes[timeAxis]! : 1,
    type,
    ...(groupAxis >= 0 ? { components: sizes[groupAxis]! } : {}),
  };
  checkGridSize(grid, WHERE);

  const { geometry, timeStep, timeOrigin } = readGeometry(header, dimension, spatialAxes, timeAxis);
  const timeFromMitk = mitkTimeBounds(header, grid.timeSteps);

  const encodingName = required('encoding').toLowerCase();
  const encoding = ({ raw: 'raw', gzip: 'gzip', gz: 'gzip', text: 'text', txt: 'text', ascii: 'text' } as const)[
    encodingName as 'raw'
  ];
  if (encoding === undefined)
    unreadable(`${WHERE}: encoding '${encodingName}' is not supported (use raw, gzip or text)`);
  const endian = f.get('endian')?.toLowerCase();
  if (endian !== undefined && endian !== 'little' && endian !== 'big')
    unreadable(`${WHERE}: endian '${endian}' is neither little nor big`);

  const dataFile = f.get('data file');
  if (dataFile !== undefined && (dataFile.startsWith('LIST') || /\s/.test(dataFile) || dataFile.includes('%'))) {
    unreadable(
      `${WHERE}: data split over several files ('data file: ${dataFile.slice(0, 40)}') is not supported; save the image as one file`,
    );
  }
  const byteSkip = Number(f.get('byte skip') ?? '0');
  if (!Number.isInteger(byteSkip) || byteSkip < -1)
    unreadable(`${WHERE}: 'byte skip' must be -1 or a non-negative integer`);
  if (byteSkip === -1 && encoding !== 'raw') unreadable(`${WHERE}: 'byte skip: -1' is only valid with raw encoding`);
  const lineSkip = Number(f.get('line skip') ?? '0');
  if (!Number.isInteger(lineSkip) || lineSkip < 0) unreadable(`${WHERE}: 'line skip' must be a non-negative integer`);

  return {
    grid,
    geometry,
    timeStepMs: timeFromMitk?.step ?? timeStep ?? 1,
    timeOriginMs: timeFromMitk?.origin ?? timeOrigin ?? 0,
    ...(timeFromMitk?.uneven ? { timeBoundsMs: timeFromMitk.bounds } : {}),
    encoding,
    // The format requires `endian` for multi-byte raw data; files that omit it are read as little-endian, the common case.
    littleEndian: endian !== 'big',
    ...(dataFile === undefined ? {} : { dataFile }),
    lineSkip,
    byteSkip,
    ...(multilabel === undefined ? {} : { multilabel }),
    ...(rgb ? { rgb } : {}),
    header,
  };
}

function readGeometry(header: NrrdHeader, dimension: number, spatialAxes: number[], timeAxis: number) {
  const f = header.fields;
  const spaceName = f.get('space')?.toLowerCase();
  const space = spaceName === undefined ? undefined : SPACES[spaceName];
  if (spaceName !== undefined && space === undefined) unreadable(`${WHERE}: space '${spaceName}' is not supported`);
  const spaceDimText = f.get('space dimension');
  const spaceDim =
    space !== undefined
      ? space.time
        ? 4
        : 3
      : spaceDimText !== undefined
        ? positiveInteger(spaceDimText, `${WHERE}: 'space dimension'`)
        : 0;
  if (spaceDim > 4) unreadable(`${WHERE}: space dimension ${spaceDim} is not supported`);
  const signs: Vec3 = space?.signs ?? [1, 1, 1];
  const toLps = (v: number[]): Vec3 => [(v[0] ?? 0) * signs[0], (v[1] ?? 0) * signs[1], (v[2] ?? 0) * signs[2]];
  const spacings = fieldList(header, 'spacings', dimension)?.map(Number);
  let timeStep: number | undefined;
  let timeOrigin: number | undefined;

  if (spaceDim === 0) {
    // No world space: per-axis spacings, identity direction, origin at zero.
    const axes = spatialAxes.map((axis, j): Vec3 => {
      const s = spacings?.[axis];
      const step = s !== undefined && Number.isFinite(s) && s !== 0 ? Math.abs(s) : 1;
      const v: Vec3 = [0, 0, 0];
      v[j] = step;
      return v;
    });
    const ts = timeAxis >= 0 ? spacings?.[timeAxis] : undefined;
    if (ts !== undefined && Number.isFinite(ts) && ts > 0) timeStep = ts;
    return { geometry: { ...geometryFromAxes(axes, WHERE), origin: [0, 0, 0] as Vec3 }, timeStep, timeOrigin };
  }

  const directionsText =
    f.get('space directions') ?? unreadable(`${WHERE}: 'space' is set but 'space directions' is missing`);
  const vectors = parseVectors(directionsText, 'space directions');
  if (vectors.length !== dimension)
    unreadable(`${WHERE}: 'space directions' has ${vectors.length} entries, 'dimension' says ${dimension}`);
  for (const v of vectors)
    if (v !== null && v.length !== spaceDim)
      unreadable(`${WHERE}: 'space directions' vector has ${v.length} components, the space has ${spaceDim}`);
  const axes = spatialAxes.map((axis) => {
    const v = vectors[axis];
    if (v === null || v === undefined) unreadable(`${WHERE}: 'space directions' is 'none' for spatial axis ${axis}`);
    return toLps(v);
  });
  if (timeAxis >= 0) {
    const v = vectors[timeAxis];
    const fromVector = v?.[3];
    const fromSpacing = spacings?.[timeAxis];
    if (fromVector !== undefined && fromVector !== 0) timeStep = Math.abs(fromVector);
    else if (fromSpacing !== undefined && Number.isFinite(fromSpacing) && fromSpacing > 0) timeStep = fromSpacing;
  }
  let origin: Vec3 = [0, 0, 0];
  const originText = f.get('space origin');
  if (originText !== undefined) {
    const parsed = parseVectors(originText, 'space origin');
    const o = parsed[0];
    if (parsed.length !== 1 || o === null || o === undefined || o.length !== spaceDim) {
      unreadable(`${WHERE}: 'space origin' must be one vector of ${spaceDim} components`);
    }
    origin = toLps(o);
    if (spaceDim === 4) timeOrigin = o[3];
  }
  return { geometry: { ...geometryFromAxes(axes, WHERE), origin }, timeStep, timeOrigin };
}

/** MITK's own record of the time steps: N+1 time bounds in ms. Ignored when it does not fit. */
function mitkTimeBounds(
  header: NrrdHeader,
  steps: number,
): { step: number; origin: number; bounds: number[]; uneven: boolean } | undefined {
  const text =
    header.keyValues.get(MITK_TIMEGEOMETRY_TIMEPOINTS) ?? header.keyValues.get('org.mitk.timegeometry.timepoints');
  if (text === undefined || steps < 1) return undefined;
  const bounds = text.trim().split(/\s+/).map(Number);
  if (bounds.length !== steps + 1 || bounds.some((b) => !Number.isFinite(b))) return undefined;
  const step = (bounds[steps]! - bounds[0]!) / steps;
  if (!(step > 0)) return undefined;
  const ordered = bounds.every((b, i) => i === 0 || b >= bounds[i - 1]!);
  const uneven = bounds.some((b, i) => Math.abs(b - (bounds[0]! + i * step)) > 1e-9 * Math.max(1, Math.abs(b)));
  return { step, origin: bounds[0]!, bounds, uneven: ordered && uneven };
}

/** Decodes the data of a NRRD: `source` is the data file, or the header file with the data after `start`. */
export function readNrrdData(layout: NrrdLayout, source: Uint8Array, start: number, what: string): Volume {
  let at = start;
  for (let i = 0; i < layout.lineSkip; i++) {
    const nl = source.indexOf(0x0a, at);
    if (nl < 0) unreadable(`${what}: 'line skip: ${layout.lineSkip}' passes the end of the data`);
    at = nl + 1;
  }
  const { grid } = layout;
  const voxels = grid.dims[0] * grid.dims[1] * grid.dims[2];
  const samples = voxels * (grid.components ?? 1);
  let frames: Float32Array[];
  if (layout.encoding === 'text') {
    frames = decodeTextFrames(new TextDecoder().decode(source.subarray(at)), samples, grid.timeSteps, what);
  } else {
    const data = layout.encoding === 'gzip' ? gunzip(source.subarray(at), what) : source.subarray(at);
    const needed = dataByteLength(grid);
    const offset = layout.byteSkip === -1 ? data.length - needed : layout.byteSkip;
    checkDataLength(data.length - offset, grid, what);
    frames = decodeFrames(data, offset, grid.type, layout.littleEndian, samples, grid.timeSteps);
  }
  if (layout.rgb === true) return rgbVolume(layout, frames, voxels);
  if (layout.multilabel === undefined) return buildVolume({ ...layout, frames });
  const segmentation = assembleSegmentation(layout.multilabel, frames, grid.components ?? 1, voxels);
  // MITK holds every group as unsigned short label values, whatever type the file stored.
  const groupFrames = segmentation.groups[0]!.frames;
  const volume = buildVolume({
    ...layout,
    grid: { dims: grid.dims, timeSteps: grid.timeSteps, type: 'uint16' },
    frames: groupFrames,
  });
  return { ...volume, range: valueRange(segmentation.groups.flatMap((g) => g.frames)), segmentation };
}

/** Interleaved RGB frames held as samples of the file's type, with their luminance as the grey frames. */
function rgbVolume(layout: NrrdLayout, interleaved: Float32Array[], voxels: number): Volume {
  const sixteen = layout.grid.type === 'uint16';
  const rgb = interleaved.map((f) => (sixteen ? Uint16Array.from(f) : Uint8Array.from(f)));
  const frames = rgb.map((c) => {
    const luminance = new Float32Array(voxels);
    for (let i = 0; i < voxels; i++) luminance[i] = 0.299 * c[i * 3]! + 0.587 * c[i * 3 + 1]! + 0.114 * c[i * 3 + 2]!;
    return luminance;
  });
  return { ...buildVolume({ ...layout, frames }), rgb };
}
