import { gzipSync } from 'node:zlib';
import type { Mat3, Vec3, Volume } from './volume.js';
import { rasToLps } from './image-geometry.js';
import { NIFTI_DATATYPES } from './nifti.js';
import { bytesPerSample, encodeFrames, type ScalarType } from './scalar-types.js';
import { writableType, type WriteOptions } from './write-options.js';

const HEADER_BYTES = 348;
/** Header plus the 4-byte extension flag: where the voxels start. */
const VOX_OFFSET = 352;
const UNITS_MM = 2;
const UNITS_MSEC = 16;
const XFORM_SCANNER_ANAT = 1;

const DATATYPE_CODES = Object.fromEntries(
  Object.entries(NIFTI_DATATYPES).map(([code, type]) => [type, Number(code)]),
) as Record<ScalarType, number>;

/**
 * A little-endian single-file NIfTI-1 image. NIfTI stores RAS, so the LPS geometry is turned
 * into RAS (x and y negated) and written both as sform and as qform, so readers that prefer
 * either find the same grid. Time is in ms (`pixdim[4]`, `xyzt_units`).
 */
export function writeNifti(volume: Volume, compress: boolean, options: WriteOptions = {}): Uint8Array {
  const type = writableType(volume);
  const data = encodeFrames(volume.frames, type);
  const out = new Uint8Array(VOX_OFFSET + data.length);
  const view = new DataView(out.buffer);
  const steps = volume.frames.length;
  const ras = rasGeometry(volume);

  view.setInt32(0, HEADER_BYTES, true);
  const dims = [steps > 1 ? 4 : 3, ...volume.dims, steps, 1, 1, 1];
  dims.forEach((d, i) => view.setInt16(40 + 2 * i, d, true));
  view.setInt16(70, DATATYPE_CODES[type], true);
  view.setInt16(72, bytesPerSample(type) * 8, true);
  const pixdim = [ras.qfac, ...volume.spacing, steps > 1 ? volume.timeStepMs : 0, 0, 0, 0];
  pixdim.forEach((p, i) => view.setFloat32(76 + 4 * i, p, true));
  view.setFloat32(108, VOX_OFFSET, true);
  view.setFloat32(112, 1, true);
  view.setFloat32(116, 0, true);
  view.setUint8(123, UNITS_MM | UNITS_MSEC);
  view.setFloat32(136, volume.timeOriginMs, true);
  writeText(out, 148, 80, 'wbplay reference workbench');
  view.setInt16(252, XFORM_SCANNER_ANAT, true);
  view.setInt16(254, XFORM_SCANNER_ANAT, true);
  ras.quaternion.forEach((q, i) => view.setFloat32(256 + 4 * i, q, true));
  ras.origin.forEach((o, i) => view.setFloat32(268 + 4 * i, o, true));
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) view.setFloat32(280 + 16 * row + 4 * col, ras.axes[col]![row]!, true);
    view.setFloat32(280 + 16 * row + 12, ras.origin[row]!, true);
  }
  writeText(out, 344, 4, 'n+1');
  out.set(data, VOX_OFFSET);
  return compress ? gzipSync(out, { level: options.gzipLevel ?? 6 }) : out;
}

function writeText(out: Uint8Array, at: number, length: number, text: string): void {
  out.set(new TextEncoder().encode(text).subarray(0, length - 1), at);
}

/** The RAS axes (spacing included), origin, qfac and quaternion (b, c, d) of a volume. */
function rasGeometry(volume: Volume): { axes: Vec3[]; origin: Vec3; qfac: number; quaternion: Vec3 } {
  const d = volume.direction;
  const units = [0, 1, 2].map((j) => rasToLps([d[j]!, d[3 + j]!, d[6 + j]!]));
  const axes = units.map((u, j) => u.map((c) => c * volume.spacing[j]! + 0) as Vec3);
  const r: Mat3 = [
    units[0]![0],
    units[1]![0],
    units[2]![0],
    units[0]![1],
    units[1]![1],
    units[2]![1],
    units[0]![2],
    units[1]![2],
    units[2]![2],
  ];
  const det =
    r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6]);
  // The quaternion holds a proper rotation; a mirrored grid flips its third axis through qfac.
  const qfac = det < 0 ? -1 : 1;
  if (qfac < 0) {
    r[2] = -r[2];
    r[5] = -r[5];
    r[8] = -r[8];
  }
  return { axes, origin: rasToLps(volume.origin).map((c) => c + 0) as Vec3, qfac, quaternion: rotationToQuaternion(r) };
}

/** (b, c, d) of the unit quaternion with a ≥ 0 of a proper rotation matrix (row-major). */
function rotationToQuaternion(r: Mat3): Vec3 {
  const [r11, r12, r13, r21, r22, r23, r31, r32, r33] = r;
  let a: number;
  let b: number;
  let c: number;
  let d: number;
  const trace = r11 + r22 + r33 + 1;
  if (trace > 0.5) {
    a = 0.5 * Math.sqrt(trace);
    b = (0.25 * (r32 - r23)) / a;
    c = (0.25 * (r13 - r31)) / a;
    d = (0.25 * (r21 - r12)) / a;
  } else if (1 + r11 - r22 - r33 > 1) {
    b = 0.5 * Math.sqrt(1 + r11 - r22 - r33);
    c = (0.25 * (r12 + r21)) / b;
    d = (0.25 * (r13 + r31)) / b;
    a = (0.25 * (r32 - r23)) / b;
  } else if (1 + r22 - r11 - r33 > 1) {
    c = 0.5 * Math.sqrt(1 + r22 - r11 - r33);
    b = (0.25 * (r12 + r21)) / c;
    d = (0.25 * (r23 + r32)) / c;
    a = (0.25 * (r13 - r31)) / c;
  } else {
    d = 0.5 * Math.sqrt(1 + r33 - r11 - r22);
    b = (0.25 * (r13 + r31)) / d;
    c = (0.25 * (r23 + r32)) / d;
    a = (0.25 * (r21 - r12)) / d;
  }
  return a < 0 ? [-b, -c, -d] : [b, c, d];
}
