import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImageReadError } from '../../src/volume/read-image.js';
import type { Mat3, Vec3, Volume } from '../../src/volume/volume.js';

/** Bytes of a header text followed by binary data. */
export function withData(header: string, data: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(header);
  const out = new Uint8Array(head.length + data.length);
  out.set(head, 0);
  out.set(data, head.length);
  return out;
}

/** Samples encoded with DataView, in the given byte order. */
export function encode(
  values: number[],
  type: 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'float32' | 'float64',
  little: boolean,
): Uint8Array {
  const size = { int8: 1, uint8: 1, int16: 2, uint16: 2, int32: 4, float32: 4, float64: 8 }[type];
  const view = new DataView(new ArrayBuffer(values.length * size));
  values.forEach((v, i) => {
    const at = i * size;
    if (type === 'int8') view.setInt8(at, v);
    else if (type === 'uint8') view.setUint8(at, v);
    else if (type === 'int16') view.setInt16(at, v, little);
    else if (type === 'uint16') view.setUint16(at, v, little);
    else if (type === 'int32') view.setInt32(at, v, little);
    else if (type === 'float32') view.setFloat32(at, v, little);
    else view.setFloat64(at, v, little);
  });
  return new Uint8Array(view.buffer);
}

export function close(actual: readonly number[], expected: readonly number[], what: string, tolerance = 1e-5): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) =>
    assert.ok(
      Math.abs(a - expected[i]!) <= tolerance,
      `${what}[${i}]: ${a} is not ${expected[i]} (all: ${actual.join(', ')})`,
    ),
  );
}

export function assertGeometry(v: Volume, g: { dims?: Vec3; spacing: Vec3; origin: Vec3; direction: Mat3 }): void {
  if (g.dims) assert.deepEqual(v.dims, g.dims);
  close(v.spacing, g.spacing, 'spacing');
  close(v.origin, g.origin, 'origin');
  close(v.direction, g.direction, 'direction');
}

/** Runs `read` and checks it throws an ImageReadError with this code and a message matching `pattern`. */
export function assertReadError(
  read: () => unknown,
  code: 'UNSUPPORTED_FORMAT' | 'FILE_READ_ERROR',
  pattern: RegExp,
): void {
  assert.throws(read, (err: unknown) => {
    assert.ok(err instanceof ImageReadError, `expected ImageReadError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, pattern);
    return true;
  });
}

export async function assertReadRejects(
  read: () => Promise<unknown>,
  code: 'UNSUPPORTED_FORMAT' | 'FILE_READ_ERROR',
  pattern: RegExp,
): Promise<void> {
  await assert.rejects(read, (err: unknown) => {
    assert.ok(err instanceof ImageReadError, `expected ImageReadError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, pattern);
    return true;
  });
}

/** A temporary directory for one test, removed afterwards. */
export async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-io-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A small volume with distinct values at every voxel, for round trips. */
export function sampleVolume(over: Partial<Volume> = {}): Volume {
  const dims: Vec3 = over.dims ?? [5, 4, 3];
  const n = dims[0] * dims[1] * dims[2];
  const steps = over.frames?.length ?? 1;
  const frames =
    over.frames ??
    Array.from({ length: steps }, (_, t) =>
      Float32Array.from({ length: n }, (_, i) => ((i * 37 + t * 11) % 500) - 120),
    );
  let min = Infinity;
  let max = -Infinity;
  for (const f of frames) {
    for (const v of f) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
  }
  return {
    dims,
    spacing: [0.8, 1.5, 2.5],
    origin: [-12.5, 30, 4],
    direction: [0, 0, 1, 1, 0, 0, 0, -1, 0],
    frames,
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'int16',
    range: [min, max],
    ...over,
  };
}
