import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { encodeIndexedPng, encodeRenderPng, RgbPngWriter } from '../../src/image/png-encode.js';
import type { RgbaImage } from '../../src/image/rgba.js';
import { image, pngjsPixels } from '../compare/images.js';

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

/** `img` through an RgbPngWriter in bands of the given heights, each band after a copy of the row above it. */
async function inBands(img: RgbaImage, heights: number[]): Promise<Uint8Array> {
  const writer = new RgbPngWriter(img.width, img.height);
  const rowBytes = img.width * 4;
  const band = new Uint8Array((Math.max(...heights) + 1) * rowBytes);
  let y = 0;
  for (const h of heights) {
    // Row 0 of the band is the row above (left as it is for the first band), then the band's rows.
    if (y > 0) band.set(img.data.subarray((y - 1) * rowBytes, y * rowBytes));
    band.set(img.data.subarray(y * rowBytes, (y + h) * rowBytes), rowBytes);
    const pending = writer.write({ width: img.width, height: h + 1, data: band }, 1, h + 1);
    // The rows are taken before write returns: drawing over the band at once changes nothing.
    band.fill(0x5a);
    await pending;
    y += h;
  }
  return writer.finish();
}

test('RgbPngWriter: opaque pixels written in bands read back unchanged, as RGB', async () => {
  const img = image(53, 40, (x, y) => {
    if (y < 4 || x > 45) return [26, 26, 26];
    if ((x - 20) ** 2 + (y - 20) ** 2 < 90) return [200, 60, 50];
    return [(x * 7 + y) & 255, (y * 13) & 255, (x ^ y) & 255];
  });
  for (const heights of [[40], [1, 39], [13, 13, 13, 1], [7, 7, 7, 7, 7, 5]]) {
    const bytes = await inBands(img, heights);
    assert.equal(bytes[25], 2, 'colour type 2: RGB');
    assert.deepEqual(pngjsPixels(bytes).data, img.data, `bands ${heights.join('+')}`);
    assert.deepEqual(bytes, await inBands(img, [40]), 'the same pixels give the same bytes, however banded');
  }
});

test('RgbPngWriter refuses rows that do not add up to the picture', async () => {
  const band = { width: 4, height: 3, data: new Uint8Array(4 * 3 * 4) };
  const short = new RgbPngWriter(4, 5);
  await short.write(band, 0, 3);
  await assert.rejects(short.finish(), /3 of 5 rows/);
  const long = new RgbPngWriter(4, 2);
  await assert.rejects(long.write(band, 0, 3), /more than 2 rows/);
  const orphan = new RgbPngWriter(4, 6);
  await orphan.write(band, 0, 3);
  await assert.rejects(orphan.write(band, 0, 3), /cannot follow row 3/);
  await assert.rejects(new RgbPngWriter(5, 3).write(band, 0, 3), /4x3 band/);
  for (const w of [short, long, orphan]) w.abort();
});
