import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeIndexedPng, encodePng } from '../../src/compare/png-encode.js';
import { card, image, pngjsPixels } from './images.js';

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
