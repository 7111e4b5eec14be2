import { unreadable } from './image-read-error.js';

/** The voxel component types the readers and writers know, named as `Volume.componentType`. */
export type ScalarType =
  'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64';

type SmallArray =
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor;

const ARRAYS: Record<ScalarType, SmallArray | BigInt64ArrayConstructor | BigUint64ArrayConstructor> = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  float32: Float32Array,
  float64: Float64Array,
};

const LIMITS: Partial<Record<ScalarType, [number, number]>> = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  int64: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

const NATIVE_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function bytesPerSample(type: ScalarType): number {
  return ARRAYS[type].BYTES_PER_ELEMENT;
}

export function isIntegerType(type: string): boolean {
  return type in LIMITS;
}

/** Human form of a grid for messages, e.g. `96x96x32 int16` or `48x48x16x10 int16`. */
export function describeGrid(dims: readonly number[], type: ScalarType): string {
  return `${dims.join('x')} ${type}`;
}

/**
 * Decodes `frameCount` frames of `voxelsPerFrame` samples starting at `offset`. Samples that are
 * aligned and in the machine's byte order are converted straight from a view on the input;
 * others go through one aligned, byte-swapped copy of their frame.
 */
export function decodeFrames(
  bytes: Uint8Array,
  offset: number,
  type: ScalarType,
  littleEndian: boolean,
  voxelsPerFrame: number,
  frameCount: number,
): Float32Array[] {
  const size = bytesPerSample(type);
  const frameBytes = voxelsPerFrame * size;
  const frames: Float32Array[] = [];
  for (let f = 0; f < frameCount; f++) {
    const start = bytes.byteOffset + offset + f * frameBytes;
    let buffer = bytes.buffer;
    let byteOffset = start;
    if (size > 1 && (littleEndian !== NATIVE_LITTLE_ENDIAN || start % size !== 0)) {
      // A real copy: Buffer#slice shares memory (and its `.buffer` is the allocation pool), so
      // swapping bytes in place would change the caller's data.
      const copy = new Uint8Array(bytes.subarray(offset + f * frameBytes, offset + (f + 1) * frameBytes));
      if (littleEndian !== NATIVE_LITTLE_ENDIAN) swapBytes(copy, size);
      buffer = copy.buffer;
      byteOffset = 0;
    }
    frames.push(toFloat32(new ARRAYS[type](buffer as ArrayBuffer, byteOffset, voxelsPerFrame)));
  }
  return frames;
}

function toFloat32(view: ArrayLike<number> | BigInt64Array | BigUint64Array): Float32Array {
  const out = new Float32Array(view.length);
  if (view instanceof BigInt64Array || view instanceof BigUint64Array) {
    // 64-bit integers beyond 2^53 lose precision here, as they do in any float pipeline.
    for (let i = 0; i < view.length; i++) out[i] = Number(view[i]!);
  } else {
    out.set(view);
  }
  return out;
}

function swapBytes(data: Uint8Array, size: number): void {
  for (let i = 0; i + size <= data.length; i += size) {
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = data[a]!;
      data[a] = data[b]!;
      data[b] = t;
    }
  }
}

/** Parses whitespace- or comma-separated numbers (NRRD `text` encoding, ASCII MetaImage). */
export function decodeTextFrames(
  text: string,
  voxelsPerFrame: number,
  frameCount: number,
  where: string,
): Float32Array[] {
  const tokens = text.split(/[\s,]+/).filter((t) => t.length > 0);
  const needed = voxelsPerFrame * frameCount;
  if (tokens.length < needed) unreadable(`${where}: text data has ${tokens.length} values, header needs ${needed}`);
  const frames: Float32Array[] = [];
  for (let f = 0; f < frameCount; f++) {
    const frame = new Float32Array(voxelsPerFrame);
    for (let i = 0; i < voxelsPerFrame; i++) {
      const token = tokens[f * voxelsPerFrame + i]!;
      const value = Number(token);
      if (Number.isNaN(value) && token.toLowerCase() !== 'nan')
        unreadable(`${where}: text data value '${token.slice(0, 20)}' is not a number`);
      frame[i] = value;
    }
    frames.push(frame);
  }
  return frames;
}

/** Encodes frames as `type`; integer types are rounded and clamped to their range. */
export function encodeFrames(frames: readonly Float32Array[], type: ScalarType, littleEndian = true): Uint8Array {
  const size = bytesPerSample(type);
  const voxels = frames.reduce((n, f) => n + f.length, 0);
  const out = new Uint8Array(voxels * size);
  const Ctor = ARRAYS[type];
  const limits = LIMITS[type];
  let at = 0;
  for (const frame of frames) {
    const view = new Ctor(out.buffer, at * size, frame.length);
    if (limits === undefined) {
      (view as Float32Array | Float64Array).set(frame);
    } else {
      const [lo, hi] = limits;
      const big = view instanceof BigInt64Array || view instanceof BigUint64Array;
      for (let i = 0; i < frame.length; i++) {
        const v = frame[i]!;
        const n = Number.isNaN(v) ? 0 : Math.min(hi, Math.max(lo, Math.round(v)));
        if (big) (view as BigInt64Array)[i] = BigInt(n);
        else (view as Int32Array)[i] = n;
      }
    }
    at += frame.length;
  }
  if (littleEndian !== NATIVE_LITTLE_ENDIAN && size > 1) swapBytes(out, size);
  return out;
}
