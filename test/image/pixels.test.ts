import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillRect } from '../../src/image/pixels.js';
import type { Rgb, RgbaImage } from '../../src/image/rgba.js';

/** What fillRect must leave: `color` inside the clipped rectangle, the old pixels elsewhere. */
function expected(before: RgbaImage, x: number, y: number, w: number, h: number, color: Rgb): number[] {
  const out = [...before.data];
  const bytes = color.map((c) => Math.round(Math.min(1, Math.max(0, c)) * 255));
  for (let yy = Math.max(0, y); yy < Math.min(before.height, y + h); yy++)
    for (let xx = Math.max(0, x); xx < Math.min(before.width, x + w); xx++)
      out.splice((yy * before.width + xx) * 4, 4, ...bytes, 255);
  return out;
}

test('fillRect paints small and large rectangles, clipped, on aligned and unaligned pixels', () => {
  const rects: Array<[number, number, number, number]> = [
    [2, 3, 2, 2], // a glyph's dot: byte by byte
    [0, 0, 40, 25], // the whole image: words
    [5, 4, 20, 10], // inside: words, row by row
    [-6, -3, 20, 12], // clipped at the top left
    [30, 18, 20, 20], // clipped at the bottom right
    [45, 0, 5, 5], // outside
  ];
  for (const offset of [0, 1]) {
    for (const [x, y, w, h] of rects) {
      const backing = new Uint8Array(40 * 25 * 4 + offset);
      const data = backing.subarray(offset);
      for (let i = 0; i < data.length; i++) data[i] = (i * 37) & 255;
      const img = { width: 40, height: 25, data };
      const want = expected({ ...img, data: data.slice() }, x, y, w, h, [0.2, 0.5, 1.2]);
      fillRect(img, x, y, w, h, [0.2, 0.5, 1.2]);
      assert.deepEqual([...img.data], want, `${x},${y} ${w}x${h} at byte offset ${offset}`);
    }
  }
});
