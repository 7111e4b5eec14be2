import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readImageBytes } from '../../src/volume/read-image.js';
import { writeImageBytes } from '../../src/volume/write-image.js';
import { IDENTITY, type Volume } from '../../src/volume/volume.js';

test('NIfTI bytes inside a pooled Node Buffer read the same as a plain array', () => {
  const frame = Float32Array.from({ length: 4 * 3 * 2 }, (_, i) => i);
  const v: Volume = {
    dims: [4, 3, 2],
    spacing: [1, 2, 3],
    origin: [0, 0, 0],
    direction: IDENTITY,
    frames: [frame],
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'float32',
    range: [0, 23],
  };
  const bytes = writeImageBytes(v, 'nii');
  // Buffer.from(string) of a small payload lands in the shared pool at a non-zero offset.
  const pooled = Buffer.concat([Buffer.from('x'), Buffer.from(bytes)]).subarray(1);
  assert.ok(pooled.byteOffset > 0 || pooled.buffer.byteLength !== pooled.length);
  const read = readImageBytes(pooled, 'nii');
  assert.deepEqual([...read.frames[0]!], [...frame]);
  assert.deepEqual(read.spacing, [1, 2, 3]);
});
