import { NIFTI1, NIFTI2 } from 'nifti-reader-js';
import type { Vec3, Volume } from './volume.js';
import { geometryFromAxes, rasToLps, type ImageGeometry } from './image-geometry.js';
import { unreadable } from './image-read-error.js';
import { decodeFrames, type ScalarType } from './scalar-types.js';
import { buildVolume, checkDataLength, checkGridSize, type Grid } from './volume-builder.js';

const WHERE = 'NIfTI header';

export const NIFTI_DATATYPES: Record<number, ScalarType> = {
  2: 'uint8',
  4: 'int16',
  8: 'int32',
  16: 'float32',
  64: 'float64',
  256: 'int8',
  512: 'uint16',
  768: 'uint32',
  1024: 'int64',
  1280: 'uint64',
};

/** Millimetres per spatial unit and milliseconds per time unit of `xyzt_units`; unknown units count as mm and ms. */
const SPACE_UNITS: Record<number, number> = { 1: 1000, 2: 1, 3: 0.001 };
const TIME_UNITS: Record<number, number> = { 8: 1000, 16: 1, 24: 0.001 };

/** `sizeof_hdr` of a NIfTI-1 or NIfTI-2 header in either byte order, or undefined. */
export function niftiVersion(bytes: Uint8Array): 1 | 2 | undefined {
  if (bytes.length < 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 4);
  for (const little of [true, false]) {
    const size = view.getInt32(0, little);
    if (size === 348) return 1;
    if (size === 540) return 2;
  }
  return undefined;
}

/**
 * Reads a single-file NIfTI-1 or NIfTI-2 image (already gunzipped). nifti-reader-js parses the
 * header fields of both versions in either byte order; the geometry is computed here because
 * the library's affine prefers the qform whenever its code exceeds the sform's, while NIfTI's
 * rule (followed here) takes the sform whenever its code is set. The result is an image
 * whatever the intent code: MITK's readers make a segmentation only of a NRRD that says so.
 */
export function readNifti(bytes: Uint8Array): Volume {
  const version = niftiVersion(bytes);
  if (version === undefined) unreadable(`${WHERE}: not a NIfTI file (sizeof_hdr is neither 348 nor 540)`);
  const headerSize = version === 1 ? 348 : 540;
  if (bytes.length < headerSize)
    unreadable(`${WHERE}: file is ${bytes.length} bytes, shorter than the ${headerSize}-byte NIfTI-${version} header`);
  // Only the fixed header goes to the library: extensions are not needed, and their parser
  // trusts sizes that a corrupt file can make loop.
  // A copy into a fresh array: a Node Buffer's `.buffer` is its whole allocation pool.
  const headerBytes = new Uint8Array(bytes.subarray(0, headerSize)).buffer;
  const hdr = version === 1 ? new NIFTI1() : new NIFTI2();
  try {
    hdr.readHeader(headerBytes);
  } catch (err) {
    unreadable(`${WHERE}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Only the first three characters count: NIfTI-2 follows them with \0\r\n\x1a\n.
  const magic = hdr.magic.slice(0, 3);
  if (magic === `ni${version}`) {
    unreadable(
      `${WHERE}: this is the header of a .hdr/.img pair whose data is in a separate file; convert it to a single .nii file`,
    );
  }
  if (magic !== `n+${version}`)
    unreadable(`${WHERE}: magic is '${magic.replace(/[^\x20-\x7e]/g, '?')}', expected 'n+${version}'`);

  const ndim = hdr.dims[0] ?? 0;
  if (ndim < 1 || ndim > 7) unreadable(`${WHERE}: dim[0] is ${ndim}, expected 1 to 7`);
  const size = (i: number): number => {
    const n = i <= ndim ? (hdr.dims[i] ?? 1) : 1;
    if (!Number.isInteger(n) || n < 1) unreadable(`${WHERE}: dim[${i}] is ${n}, expected a positive size`);
    return n;
  };
  for (let i = 5; i <= 7; i++) {
    if (size(i) > 1)
      unreadable(
        `${WHERE}: dim[${i}] is ${size(i)}: images with more than 4 dimensions or vector pixels are not supported`,
      );
  }
  const type =
    NIFTI_DATATYPES[hdr.datatypeCode] ??
    unreadable(
      `${WHERE}: datatype ${hdr.datatypeCode} is not supported (use an integer or floating-point scalar type)`,
    );
  const grid: Grid = { dims: [size(1), size(2), size(3)], timeSteps: size(4), type };
  checkGridSize(grid, WHERE);

  const voxOffset = Math.floor(hdr.vox_offset);
  if (!Number.isFinite(hdr.vox_offset) || voxOffset < headerSize)
    unreadable(`${WHERE}: vox_offset ${hdr.vox_offset} points inside the header`);
  checkDataLength(bytes.length - voxOffset, grid, 'NIfTI');
  const voxels = grid.dims[0] * grid.dims[1] * grid.dims[2];
  const frames = decodeFrames(bytes, voxOffset, type, hdr.littleEndian, voxels, grid.timeSteps);
  applyScaling(frames, hdr.scl_slope, hdr.scl_inter);

  const timeUnit = TIME_UNITS[hdr.xyzt_units & 0x38] ?? 1;
  const pixdim4 = hdr.pixDims[4] ?? 0;
  const timeStepMs = grid.timeSteps > 1 && Number.isFinite(pixdim4) && pixdim4 > 0 ? pixdim4 * timeUnit : 1;
  const toffset = Number.isFinite(hdr.toffset) ? hdr.toffset * timeUnit : 0;
  return buildVolume({
    grid,
    geometry: niftiGeometry(hdr, readSrows(bytes, version, hdr.littleEndian)),
    frames,
    timeStepMs,
    timeOriginMs: toffset,
  });
}

function applyScaling(frames: Float32Array[], slope: number, inter: number): void {
  // A slope of 0 (or a non-number) means "not scaled", per the NIfTI standard.
  if (!Number.isFinite(slope) || slope === 0 || !Number.isFinite(inter) || (slope === 1 && inter === 0)) return;
  for (const frame of frames) for (let i = 0; i < frame.length; i++) frame[i] = frame[i]! * slope + inter;
}

/** The sform rows as stored: float32 in NIfTI-1 at byte 280, float64 in NIfTI-2 at byte 400. */
function readSrows(bytes: Uint8Array, version: 1 | 2, little: boolean): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, version === 1 ? 348 : 540);
  const rows: number[] = [];
  for (let i = 0; i < 12; i++)
    rows.push(version === 1 ? view.getFloat32(280 + 4 * i, little) : view.getFloat64(400 + 8 * i, little));
  return rows;
}

type NiftiHeader = NIFTI1 | NIFTI2;

/**
 * NIfTI's rule: sform when sform_code > 0, else qform when qform_code > 0, else pixdim scaling.
 * ITK's NIfTI reader prefers the sform only when it is a valid rigid transform; the plain
 * NIfTI rule is used here. The result is turned from RAS to LPS.
 */
function niftiGeometry(hdr: NiftiHeader, srow: number[]): ImageGeometry {
  const pixdim = (i: number): number => {
    const p = Math.abs(hdr.pixDims[i] ?? 1);
    return Number.isFinite(p) && p > 0 ? p : 1;
  };
  const unit = SPACE_UNITS[hdr.xyzt_units & 0x07] ?? 1;
  let columns: Vec3[];
  let origin: Vec3;
  if (hdr.sform_code > 0) {
    columns = [0, 1, 2].map((j): Vec3 => [srow[j]!, srow[4 + j]!, srow[8 + j]!]);
    origin = [srow[3]!, srow[7]!, srow[11]!];
  } else if (hdr.qform_code > 0) {
    const r = quaternionMatrix(hdr.quatern_b, hdr.quatern_c, hdr.quatern_d);
    const qfac = (hdr.pixDims[0] ?? 1) < 0 ? -1 : 1;
    columns = [0, 1, 2].map((j): Vec3 => {
      const s = pixdim(j + 1) * (j === 2 ? qfac : 1);
      return [r[j]! * s, r[3 + j]! * s, r[6 + j]! * s];
    });
    origin = [hdr.qoffset_x, hdr.qoffset_y, hdr.qoffset_z];
  } else {
    columns = [
      [pixdim(1), 0, 0],
      [0, pixdim(2), 0],
      [0, 0, pixdim(3)],
    ];
    origin = [0, 0, 0];
  }
  if (origin.some((o) => !Number.isFinite(o))) unreadable(`${WHERE}: the image origin is not a finite number`);
  const axes = columns.map((c) => rasToLps([c[0] * unit, c[1] * unit, c[2] * unit]));
  return { ...geometryFromAxes(axes, WHERE), origin: rasToLps([origin[0] * unit, origin[1] * unit, origin[2] * unit]) };
}

/** Rotation matrix (row-major) of the unit quaternion (a, b, c, d) with a derived from b, c, d. */
function quaternionMatrix(b: number, c: number, d: number): number[] {
  let a2 = 1 - (b * b + c * c + d * d);
  if (a2 < 1e-7) {
    // Rounding can push b, c, d just past unit length: a is 0 and they are renormalised (NIfTI's rule).
    const n = Math.hypot(b, c, d) || 1;
    b /= n;
    c /= n;
    d /= n;
    a2 = 0;
  }
  const a = Math.sqrt(a2);
  return [
    a * a + b * b - c * c - d * d,
    2 * (b * c - a * d),
    2 * (b * d + a * c),
    2 * (b * c + a * d),
    a * a + c * c - b * b - d * d,
    2 * (c * d - a * b),
    2 * (b * d - a * c),
    2 * (c * d + a * b),
    a * a + d * d - b * b - c * c,
  ];
}
