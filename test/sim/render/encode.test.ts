import { test } from 'node:test';
import assert from 'node:assert/strict';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { encodeImage, renderView } from '../../../src/sim/render/index.js';
import type { RgbaImage } from '../../../src/sim/render/types.js';
import { layerOf, makeVolume, view2d } from './fixtures.js';

/** A small image with every pixel different, alpha 200 on the first row. */
function sample(): RgbaImage {
  const width = 7;
  const height = 5;
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++)
    data.set([(i * 37) % 256, (i * 91) % 256, (i * 13) % 256, i < width ? 200 : 255], i * 4);
  return { width, height, data };
}

const PNG_COLOUR_TYPE_BYTE = 25; // signature 8 + chunk length 4 + "IHDR" 4 + width 4 + height 4 + bit depth 1

test('PNG without alpha is colour type 2 (RGB, as window grabs) and keeps every colour exactly', () => {
  const source = sample();
  const bytes = encodeImage(source, 'png');
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(bytes[PNG_COLOUR_TYPE_BYTE], 2);
  const decoded = PNG.sync.read(bytes);
  assert.deepEqual([decoded.width, decoded.height], [7, 5]);
  for (let i = 0; i < 35; i++) {
    assert.deepEqual([...decoded.data.subarray(i * 4, i * 4 + 3)], [...source.data.subarray(i * 4, i * 4 + 3)]);
    assert.equal(decoded.data[i * 4 + 3], 255, 'RGB has no alpha');
  }
});

test('PNG with alpha is colour type 6 (RGBA, as canvas grabs) and keeps the alpha', () => {
  const bytes = encodeImage(sample(), 'png', { alpha: true });
  assert.equal(bytes[PNG_COLOUR_TYPE_BYTE], 6);
  const decoded = PNG.sync.read(bytes);
  assert.deepEqual(Buffer.from(decoded.data), Buffer.from(sample().data));
});

test('pixels in a view of a larger buffer are encoded from their own bytes', () => {
  const source = sample();
  const big = new Uint8Array(source.data.length + 16).fill(9);
  big.set(source.data, 8);
  const view = { ...source, data: big.subarray(8, 8 + source.data.length) };
  assert.ok(encodeImage(view, 'png').equals(encodeImage(source, 'png')));
  assert.ok(encodeImage(view, 'jpeg').equals(encodeImage(source, 'jpeg')));
});

test('JPEG starts with SOI and decodes to the same size and about the same colours', () => {
  const data = new Uint8Array(32 * 16 * 4);
  for (let i = 0; i < 32 * 16; i++) data.set(i % 32 < 16 ? [200, 30, 30, 255] : [20, 20, 220, 255], i * 4);
  const bytes = encodeImage({ width: 32, height: 16, data }, 'jpeg');
  assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const decoded = jpeg.decode(bytes, { useTArray: true });
  assert.deepEqual([decoded.width, decoded.height], [32, 16]);
  const at = (x: number, y: number): number[] => [...decoded.data.subarray((y * 32 + x) * 4, (y * 32 + x) * 4 + 3)];
  const near = (a: number[], b: number[]): boolean => a.every((v, i) => Math.abs(v - b[i]!) <= 12);
  assert.ok(near(at(4, 8), [200, 30, 30]), `left is red: ${at(4, 8)}`);
  assert.ok(near(at(27, 8), [20, 20, 220]), `right is blue: ${at(27, 8)}`);
});

test('the same state gives byte-identical PNG and JPEG files, whatever was drawn in between', () => {
  const volume = makeVolume({ dims: [16, 16, 8], value: (i, j, k) => (i * 31 + j * 17 + k * 7) % 1000 });
  const view = view2d('axial', [7.5, 7.5, 4], { size: 48, parallelScale: 10 });
  const first = encodeImage(renderView(view, [layerOf(volume)]), 'png');
  renderView(view2d('coronal', [3, 3, 3]), [layerOf(volume, { opacity: 0.3 })]);
  const second = encodeImage(renderView(view, [layerOf(volume)]), 'png');
  assert.ok(first.equals(second));
  const jpegA = encodeImage(renderView(view, [layerOf(volume)]), 'jpeg');
  const jpegB = encodeImage(renderView(view, [layerOf(volume)]), 'jpeg');
  assert.ok(jpegA.equals(jpegB));
});
