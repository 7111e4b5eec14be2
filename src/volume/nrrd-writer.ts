import { gzipSync } from 'node:zlib';
import type { RgbSamples, Volume } from './volume.js';
import { axisVector } from './image-geometry.js';
import { interleaveGroups, multilabelHeaderLines } from './multilabel.js';
import { MITK_TIMEGEOMETRY_TIMEPOINTS, MITK_TIMEGEOMETRY_TYPE } from './nrrd.js';
import { encodeFrames, type ScalarType } from './scalar-types.js';
import { numberText, writableType, type WriteOptions } from './write-options.js';

/** The type names ITK's NRRD writer uses, so a file reads the same as one MITK saved. */
const NRRD_TYPES: Record<ScalarType, string> = {
  int8: 'signed char',
  uint8: 'unsigned char',
  int16: 'short',
  uint16: 'unsigned short',
  int32: 'int',
  uint32: 'unsigned int',
  int64: 'long long int',
  uint64: 'unsigned long long int',
  float32: 'float',
  float64: 'double',
};

/**
 * A gzip-encoded NRRD with an attached header, as MITK writes images: LPS `space`, `space
 * directions` (direction × spacing), `space origin`. A 3D+time volume uses the 4D space
 * `left-posterior-superior-time` with the time step on the 4th axis, and MITK's time-geometry
 * keys so MITK itself reads the same time steps. A segmentation is written as MITK writes one:
 * unsigned short label values, its label groups as JSON in MITK's keys, and a first `vector`
 * axis (no space direction) that holds one value per group. MITK writes a segmentation of one
 * group without that axis, a file its Python client cannot read; with the axis (of size 1)
 * both read it, as the Python client writes it.
 */
export function writeNrrd(volume: Volume, options: WriteOptions = {}): Uint8Array {
  const segmentation = volume.segmentation;
  // A colour image is written as ITK writes RGB pixels: three components on a first axis,
  // unsigned char or (16-bit colour) unsigned short.
  const rgb = segmentation ? undefined : volume.rgb;
  const type = segmentation
    ? 'uint16'
    : rgb
      ? rgb[0] instanceof Uint16Array
        ? 'uint16'
        : 'uint8'
      : writableType(volume);
  const groups = segmentation?.groups.length ?? (rgb ? 3 : 0);
  const steps = volume.frames.length;
  const timed = steps > 1;
  const vec = (v: number[]): string => `(${v.map(numberText).join(',')})`;
  const axes = [0, 1, 2].map((j) => {
    const v = axisVector(volume.direction, volume.spacing, j);
    return vec(timed ? [...v, 0] : v);
  });
  const sizes = [...(groups > 0 ? [groups] : []), ...volume.dims, ...(timed ? [steps] : [])];
  const directions = [...(groups > 0 ? ['none'] : []), ...axes, ...(timed ? [vec([0, 0, 0, volume.timeStepMs])] : [])];
  const kinds = [
    ...(groups > 0 ? [rgb ? 'RGB-color' : 'vector'] : []),
    'domain',
    'domain',
    'domain',
    ...(timed ? ['time'] : []),
  ];
  const lines = [
    'NRRD0004',
    `type: ${NRRD_TYPES[type]}`,
    `dimension: ${sizes.length}`,
    `space: ${timed ? 'left-posterior-superior-time' : 'left-posterior-superior'}`,
    `sizes: ${sizes.join(' ')}`,
    `space directions: ${directions.join(' ')}`,
    `kinds: ${kinds.join(' ')}`,
    'endian: little',
    'encoding: gzip',
    `space origin: ${vec(timed ? [...volume.origin, volume.timeOriginMs] : volume.origin)}`,
  ];
  if (timed) {
    const bounds =
      volume.timeBoundsMs?.length === steps + 1
        ? volume.timeBoundsMs.map(numberText)
        : Array.from({ length: steps + 1 }, (_, i) => numberText(volume.timeOriginMs + i * volume.timeStepMs));
    lines.push(
      `${MITK_TIMEGEOMETRY_TYPE}:=ArbitraryTimeGeometry`,
      `${MITK_TIMEGEOMETRY_TIMEPOINTS}:=${bounds.join(' ')}`,
    );
  }
  if (segmentation) lines.push(...multilabelHeaderLines(segmentation));
  const header = new TextEncoder().encode(`${lines.join('\n')}\n\n`);
  const frames = segmentation ? interleaveGroups(segmentation) : volume.frames;
  const samples = rgb ? concat(rgb) : encodeFrames(frames, type);
  const data = gzipSync(samples, { level: options.gzipLevel ?? 6 });
  const out = new Uint8Array(header.length + data.length);
  out.set(header, 0);
  out.set(data, header.length);
  return out;
}

/** The time steps' samples back to back, little-endian as the header says. */
function concat(parts: readonly RgbSamples[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of parts) {
    if (p instanceof Uint8Array) out.set(p, at);
    else for (let i = 0; i < p.length; i++) view.setUint16(at + i * 2, p[i]!, true);
    at += p.byteLength;
  }
  return out;
}
