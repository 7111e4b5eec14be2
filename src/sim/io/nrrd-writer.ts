import { gzipSync } from 'node:zlib';
import type { Volume } from '../volume.js';
import { axisVector } from './image-geometry.js';
import { MITK_MULTILABEL_MODALITY, MITK_TIMEGEOMETRY_TIMEPOINTS, MITK_TIMEGEOMETRY_TYPE } from './nrrd.js';
import { encodeFrames, type ScalarType } from './scalar-types.js';
import { numberText, writableType, type WriteOptions } from './write-options.js';

const NRRD_TYPES: Record<ScalarType, string> = {
  int8: 'int8',
  uint8: 'uint8',
  int16: 'int16',
  uint16: 'uint16',
  int32: 'int32',
  uint32: 'uint32',
  int64: 'int64',
  uint64: 'uint64',
  float32: 'float',
  float64: 'double',
};

/** Default colours of labels 1, 2, ... (then repeating), as a segmentation editor would pick them. */
const LABEL_COLOURS: [number, number, number][] = [
  [1, 0.2, 0.2],
  [0.2, 1, 0.2],
  [0.2, 0.4, 1],
  [1, 0.85, 0.2],
  [0.8, 0.2, 1],
];

/**
 * A gzip-encoded NRRD with an attached header, as MITK writes images: LPS `space`, `space
 * directions` (direction × spacing), `space origin`. A 3D+time volume uses the 4D space
 * `left-posterior-superior-time` with the time step on the 4th axis, and MITK's time-geometry
 * keys so MITK itself reads the same time steps. A label volume carries MITK's multilabel keys.
 */
export function writeNrrd(volume: Volume, options: WriteOptions = {}): Uint8Array {
  const type = writableType(volume);
  const steps = volume.frames.length;
  const timed = steps > 1;
  const vec = (v: number[]): string => `(${v.map(numberText).join(',')})`;
  const axes = [0, 1, 2].map((j) => {
    const v = axisVector(volume.direction, volume.spacing, j);
    return vec(timed ? [...v, 0] : v);
  });
  const lines = [
    'NRRD0004',
    `type: ${NRRD_TYPES[type]}`,
    `dimension: ${timed ? 4 : 3}`,
    `space: ${timed ? 'left-posterior-superior-time' : 'left-posterior-superior'}`,
    `sizes: ${[...volume.dims, ...(timed ? [steps] : [])].join(' ')}`,
    `space directions: ${[...axes, ...(timed ? [vec([0, 0, 0, volume.timeStepMs])] : [])].join(' ')}`,
    `kinds: domain domain domain${timed ? ' time' : ''}`,
    'endian: little',
    'encoding: gzip',
    `space origin: ${vec(timed ? [...volume.origin, volume.timeOriginMs] : volume.origin)}`,
  ];
  if (timed) {
    const bounds = Array.from({ length: steps + 1 }, (_, i) => numberText(volume.timeOriginMs + i * volume.timeStepMs));
    lines.push(`${MITK_TIMEGEOMETRY_TYPE}:=ArbitraryTimeGeometry`, `${MITK_TIMEGEOMETRY_TIMEPOINTS}:=${bounds.join(' ')}`);
  }
  if (volume.isLabel) lines.push(...multilabelKeys(volume, options));
  const header = new TextEncoder().encode(`${lines.join('\n')}\n\n`);
  const data = gzipSync(encodeFrames(volume.frames, type), { level: options.gzipLevel ?? 6 });
  const out = new Uint8Array(header.length + data.length);
  out.set(header, 0);
  out.set(data, header.length);
  return out;
}

/** MITK's marker of a multilabel segmentation, with one label group naming the values present. */
function multilabelKeys(volume: Volume, options: WriteOptions): string[] {
  const values = new Set<number>();
  for (const frame of volume.frames) for (let i = 0; i < frame.length; i++) if (frame[i]! > 0) values.add(Math.round(frame[i]!));
  const labels = [...values].sort((a, b) => a - b).map((value) => ({
    name: options.labelNames?.[value] ?? `Label ${value}`,
    value,
    color: { type: 'ColorProperty', value: LABEL_COLOURS[(value - 1) % LABEL_COLOURS.length] },
    opacity: 0.6,
    visible: true,
    locked: true,
  }));
  return [
    `modality:=${MITK_MULTILABEL_MODALITY}`,
    `${MITK_MULTILABEL_MODALITY}.version:=1`,
    `${MITK_MULTILABEL_MODALITY}.labelgroups:=${JSON.stringify([{ labels }])}`,
    `${MITK_MULTILABEL_MODALITY}.unlabeledlabellock:=0`,
  ];
}
