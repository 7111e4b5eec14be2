import type { Volume } from './volume.js';
import type { ScalarType } from './scalar-types.js';

export interface WriteOptions {
  /** zlib level for gzip output (1 fast ... 9 small); 6 by default. */
  gzipLevel?: number;
}

const TYPES: readonly string[] = [
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'float32',
  'float64',
];

/** The volume's component type when a file can store it, else float32 (which holds any value read). */
export function writableType(volume: Volume): ScalarType {
  return TYPES.includes(volume.componentType) ? (volume.componentType as ScalarType) : 'float32';
}

/** Shortest text that reads back to the same double; never `-0`. */
export function numberText(n: number): string {
  return Object.is(n, -0) ? '0' : String(n);
}
