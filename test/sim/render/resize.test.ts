import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resizeImage } from '../../../src/sim/render/index.js';
import type { RgbaImage } from '../../../src/sim/render/types.js';
import { px } from './fixtures.js';

function image(width: number, height: number, grey: (x: number, y: number) => number): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      data.fill(grey(x, y), o, o + 3);
      data[o + 3] = 255;
    }
  }
  return { width, height, data };
}

const checkerboard = (n: number): RgbaImage => image(n, n, (x, y) => ((x + y) % 2 ? 255 : 0));
const greys = (img: RgbaImage): number[] => Array.from({ length: img.width * img.height }, (_, i) => img.data[i * 4]!);

test('the result has exactly the asked size, whatever the aspect ratio', () => {
  const source = checkerboard(32);
  for (const [w, h] of [
    [7, 5],
    [1, 1],
    [300, 20],
    [32, 32],
    [64, 16],
  ] as const) {
    const out = resizeImage(source, w, h);
    assert.deepEqual([out.width, out.height, out.data.length], [w, h, w * h * 4]);
  }
});

test('the same size gives the same pixels in a new buffer', () => {
  const source = checkerboard(8);
  const out = resizeImage(source, 8, 8);
  assert.deepEqual(out.data, source.data);
  assert.notEqual(out.data, source.data);
});

test('shrinking averages areas instead of picking pixels, so fine patterns do not alias', () => {
  // A 1-pixel checkerboard is mid-grey when seen from afar; point sampling would give black or white.
  for (const [n, to] of [
    [64, 16],
    [64, 8],
    [96, 20],
    [63, 21],
  ] as const) {
    for (const v of greys(resizeImage(checkerboard(n), to, to))) assert.ok(v >= 100 && v <= 155, `${n} -> ${to}: ${v}`);
  }
  // Halving a pixel pair pattern keeps the pairs exactly.
  const pairs = image(4, 1, (x) => (x < 2 ? 0 : 255));
  assert.deepEqual(greys(resizeImage(pairs, 2, 1)), [0, 255]);
});

test('enlarging is smooth: a hard edge becomes a ramp, a flat image stays flat', () => {
  const edge = greys(
    resizeImage(
      image(2, 1, (x) => (x === 0 ? 0 : 255)),
      8,
      1,
    ),
  );
  assert.equal(edge[0], 0);
  assert.equal(edge[7], 255);
  for (let i = 1; i < edge.length; i++) assert.ok(edge[i]! >= edge[i - 1]!, `non-decreasing: ${edge}`);
  assert.ok(new Set(edge).size >= 4, `intermediate greys: ${edge}`);
  const flat = resizeImage(
    image(5, 3, () => 77),
    13,
    11,
  );
  assert.ok(greys(flat).every((v) => v === 77));
  assert.deepEqual(px(flat, 12, 10), [77, 77, 77, 255]);
});

test('weights always sum to one: a flat image stays flat, opaque stays opaque, at any factor', () => {
  for (const [from, to] of [
    [4, 3],
    [7, 5],
    [10, 7],
    [100, 33],
    [33, 100],
    [9, 4],
    [1026, 1025],
  ] as const) {
    const out = resizeImage(
      image(from, 3, () => 77),
      to,
      2,
    );
    for (let i = 0; i < out.data.length; i += 4)
      assert.deepEqual([...out.data.subarray(i, i + 4)], [77, 77, 77, 255], `${from} -> ${to}, pixel ${i / 4}`);
  }
});

test('resizing is deterministic', () => {
  const source = image(37, 23, (x, y) => (x * 7 + y * 13) % 256);
  assert.deepEqual(resizeImage(source, 101, 9).data, resizeImage(source, 101, 9).data);
  assert.deepEqual(resizeImage(source, 5, 4).data, resizeImage(source, 5, 4).data);
});
