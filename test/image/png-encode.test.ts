import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { encodeIndexedPng, encodePng, encodeRenderPng } from '../../src/image/png-encode.js';
import { card, image, pngjsPixels } from '../compare/images.js';

test('RGBA pixels encode to a PNG that pngjs reads back unchanged, at any level', async () => {
  const img = image(13, 7, (x, y) => [x * 19, y * 31, (x * y) & 255, 255 - x * 9]);
  for (const level of [0, 1, 9]) {
    const back = pngjsPixels(await encodePng(img, level));
    assert.equal(back.width, 13);
    assert.equal(back.height, 7);
    assert.deepEqual(back.data, img.data);
  }
  assert.deepEqual(pngjsPixels(await encodePng(card(40, 40))).data, card(40, 40).data);
});

test('palette pixels encode to a PNG whose colours are the palette entries', async () => {
  const palette = Uint8Array.of(0, 0, 0, 255, 0, 0, 10, 200, 30);
  const indices = Uint8Array.from({ length: 5 * 4 }, (_, i) => i % 3);
  const back = pngjsPixels(await encodeIndexedPng(5, 4, indices, palette, 1));
  for (let i = 0; i < indices.length; i++) {
    const c = indices[i]! * 3;
    assert.deepEqual([...back.data.subarray(i * 4, i * 4 + 4)], [palette[c], palette[c + 1], palette[c + 2], 255]);
  }
});

test('window captures are byte for byte what pngjs writes with a Paeth filter, RGB and RGBA', () => {
  // The rendering goldens were first written by pngjs; holding the bytes keeps every golden valid.
  for (const [w, h, seed] of [
    [1, 1, 3],
    [5, 3, 7],
    [64, 48, 11],
    [301, 17, 13],
  ] as const) {
    const img = image(w, h, (x, y) => [
      (x * seed + y) & 255,
      (y * 3 * seed) & 255,
      (x ^ y) & 255,
      (x * y + seed) & 255,
    ]);
    for (const alpha of [false, true]) {
      const png = new PNG({ width: w, height: h });
      const rgba = Buffer.from(img.data);
      if (alpha) png.data = rgba;
      else png.data = Buffer.from(rgba.filter((_, i) => i % 4 !== 3));
      const options = alpha
        ? { colorType: 6, inputColorType: 6, inputHasAlpha: true }
        : { colorType: 2, inputColorType: 2, inputHasAlpha: false };
      const expected = PNG.sync.write(png, { ...options, filterType: 4 } as Parameters<typeof PNG.sync.write>[1]);
      assert.deepEqual(Buffer.from(encodeRenderPng(img, alpha)), expected, `${w}x${h} alpha=${String(alpha)}`);
    }
  }
});

test('window captures of flat areas, runs and a misaligned buffer are the same bytes as pngjs writes', () => {
  // Runs of equal pixels take the encoder's shortcut; colours that differ only in alpha must not.
  const w = 97;
  const h = 41;
  const img = image(w, h, (x, y) => {
    if (y < 5) return [20, 30, 40, 255];
    if ((x - 50) ** 2 + (y - 20) ** 2 < 150) return [200, 60, 50, 255];
    if (x > 80) return [90, 90, 90, x % 2 === 0 ? 255 : 128];
    return [10 + (y >> 3), 10, 10 + (x >> 4), 255];
  });
  const misaligned = new Uint8Array(img.data.length + 1).subarray(1);
  misaligned.set(img.data);
  for (const data of [img.data, misaligned]) {
    for (const alpha of [false, true]) {
      const png = new PNG({ width: w, height: h });
      const rgba = Buffer.from(img.data);
      png.data = alpha ? rgba : Buffer.from(rgba.filter((_, i) => i % 4 !== 3));
      const options = alpha
        ? { colorType: 6, inputColorType: 6, inputHasAlpha: true }
        : { colorType: 2, inputColorType: 2, inputHasAlpha: false };
      const expected = PNG.sync.write(png, { ...options, filterType: 4 } as Parameters<typeof PNG.sync.write>[1]);
      const got = encodeRenderPng({ width: w, height: h, data }, alpha);
      assert.deepEqual(Buffer.from(got), expected, `alpha=${String(alpha)} offset=${data.byteOffset}`);
    }
  }
});
