import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompareError } from '../../src/image/image-error.js';
import { decodePng, decodePngInto } from '../../src/image/png-decode.js';
import { listChunks, makeChunk } from '../../src/image/png-chunks.js';
import type { RgbaImage } from '../../src/image/rgba.js';
import { card, image, interlacedRgb, png, pngjsPixels, rawPng, rows } from '../compare/images.js';

async function assertAgrees(bytes: Uint8Array, what: string): Promise<void> {
  const ours = await decodePng(bytes);
  const reference = pngjsPixels(bytes);
  assert.equal(ours.width, reference.width, what);
  assert.equal(ours.height, reference.height, what);
  assert.ok(Buffer.from(ours.data).equals(Buffer.from(reference.data)), `${what}: pixels differ from pngjs`);
}

test('RGBA and RGB with every scanline filter decode as pngjs decodes them', async () => {
  // Odd widths make RGB rows end off a word boundary; filter -1 lets pngjs mix filters per row.
  for (const [w, h] of [
    [1, 1],
    [7, 5],
    [33, 17],
  ] as const) {
    const img = card(w, h, w);
    for (const colorType of [2, 6] as const) {
      for (const filterType of [-1, 0, 1, 2, 3, 4]) {
        await assertAgrees(
          png(img, { colorType, filterType }),
          `${w}x${h} colour type ${colorType} filter ${filterType}`,
        );
      }
    }
  }
});

test('flat areas, runs and edges under every filter decode as pngjs decodes them', async () => {
  // Runs of equal pixels under equal pixels above take the Paeth shortcut; colours that differ
  // only in one byte, or only in alpha, must not.
  const img = image(61, 23, (x, y) => {
    if (y < 3) return [20, 30, 40];
    if ((x - 30) ** 2 + (y - 12) ** 2 < 60) return [200, 60, 50];
    if (x > 50) return [90, 90, x % 2 === 0 ? 90 : 91, y % 3 === 0 ? 255 : 128];
    return [10 + (y >> 2), 10, 10 + (x >> 3)];
  });
  for (const colorType of [2, 6] as const)
    for (const filterType of [-1, 0, 1, 2, 3, 4])
      await assertAgrees(png(img, { colorType, filterType }), `colour type ${colorType} filter ${filterType}`);
});

test('decodePngInto writes the pixels at their place in a larger image and nothing else', async () => {
  const tile = card(13, 7, 5);
  const palette = makeChunk('PLTE', Uint8Array.from([0, 0, 0, 255, 0, 0, 0, 255, 0, 10, 20, 30]));
  const inputs: Array<[string, Uint8Array, RgbaImage]> = [
    ['RGB', png(tile, { colorType: 2, filterType: 4 }), tile],
    ['RGBA', png(tile, { colorType: 6, filterType: -1 }), tile],
  ];
  const indexed = rawPng(
    5,
    3,
    8,
    3,
    rows(3, 5, (i, y) => (i + y) % 4),
    [palette],
  );
  inputs.push(['palette (pngjs)', indexed, pngjsPixels(indexed)]);
  for (const [what, bytes, expected] of inputs) {
    const big = image(30, 20, () => [1, 2, 3, 4]);
    const size = await decodePngInto(bytes, { image: big, x: 9, y: 6 });
    assert.deepEqual(size, { width: expected.width, height: expected.height }, what);
    for (let y = 0; y < 20; y++) {
      for (let x = 0; x < 30; x++) {
        const inside = x >= 9 && y >= 6 && x < 9 + expected.width && y < 6 + expected.height;
        const o = (y * 30 + x) * 4;
        const want = inside
          ? [
              ...expected.data.subarray(
                ((y - 6) * expected.width + x - 9) * 4,
                ((y - 6) * expected.width + x - 9) * 4 + 4,
              ),
            ]
          : [1, 2, 3, 4];
        assert.deepEqual([...big.data.subarray(o, o + 4)], want, `${what} at ${x},${y}`);
      }
    }
  }
  await assert.rejects(
    decodePngInto(inputs[0]![1], { image: image(20, 20, () => [0, 0, 0]), x: 8, y: 0 }),
    /does not fit at 8,0 of 20x20/,
  );
});

test('translucent RGBA keeps its alpha', async () => {
  const img = image(9, 4, (x, y) => [x * 20, y * 50, 7, (x * 31 + y * 17) & 255]);
  await assertAgrees(png(img, { colorType: 6 }), 'translucent');
  assert.deepEqual((await decodePng(png(img))).data, img.data);
});

test('grey, grey with alpha, palette, 16-bit, transparency key and interlaced inputs fall back to pngjs and agree', async () => {
  const img = card(11, 6, 3);
  await assertAgrees(png(img, { colorType: 0 }), 'grey');
  await assertAgrees(png(img, { colorType: 4 }), 'grey with alpha');
  const palette = makeChunk('PLTE', Uint8Array.from([0, 0, 0, 255, 0, 0, 0, 255, 0, 10, 20, 30]));
  await assertAgrees(
    rawPng(
      5,
      3,
      8,
      3,
      rows(3, 5, (i, y) => (i + y) % 4),
      [palette],
    ),
    'palette',
  );
  await assertAgrees(
    rawPng(
      5,
      3,
      8,
      3,
      rows(3, 5, (i, y) => (i * y) % 4),
      [palette, makeChunk('tRNS', Uint8Array.of(0, 128))],
    ),
    'palette with transparency',
  );
  await assertAgrees(
    rawPng(
      4,
      3,
      16,
      2,
      rows(3, 24, (i, y) => i * 37 + y * 11),
    ),
    '16-bit RGB',
  );
  await assertAgrees(
    rawPng(
      4,
      3,
      16,
      6,
      rows(3, 32, (i, y) => i * 13 + y),
    ),
    '16-bit RGBA',
  );
  await assertAgrees(
    rawPng(
      3,
      2,
      8,
      2,
      rows(2, 9, (i) => i * 20),
      [makeChunk('tRNS', Uint8Array.of(0, 0, 0, 20, 0, 40))],
    ),
    'RGB with transparency key',
  );
  await assertAgrees(
    interlacedRgb(13, 9, (x, y) => [x * 19, y * 27, (x ^ y) * 9]),
    'interlaced',
  );
});

test('image data split over several IDAT chunks decodes the same', async () => {
  const whole = png(card(40, 30));
  const chunks = listChunks(whole);
  const idat = Buffer.concat(
    chunks.filter((c) => c.type === 'IDAT').map((c) => whole.subarray(c.dataOffset, c.dataOffset + c.length)),
  );
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < idat.length; i += 50) pieces.push(makeChunk('IDAT', idat.subarray(i, i + 50)));
  const ihdr = chunks[0]!;
  const bytes = Buffer.concat([
    whole.subarray(0, ihdr.offset + 12 + ihdr.length),
    ...pieces,
    makeChunk('IEND', new Uint8Array(0)),
  ]);
  assert.ok(pieces.length > 3);
  await assertAgrees(bytes, 'several IDAT');
});

test('damaged files are CompareErrors that say what is wrong', async () => {
  const good = png(card(16, 16));
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['not a PNG', new TextEncoder().encode('GIF89a but not really'), /signature/],
    ['empty', new Uint8Array(0), /signature/],
    ['truncated', good.subarray(0, good.length - 40), /truncated|ends|inflated/],
    ['no IEND', good.subarray(0, good.length - 12), /truncated|ends/],
  ];
  const flipped = good.slice();
  // Damage the compressed pixels (IDAT data starts after signature 8 + IHDR 25 + IDAT header 8).
  for (let i = 60; i < 80; i++) flipped[i] = flipped[i]! ^ 0x5a;
  cases.push(['damaged data', flipped, /image data|filter/]);
  for (const [what, bytes, pattern] of cases) {
    await assert.rejects(decodePng(bytes, 'golden x.png'), (error: unknown) => {
      assert.ok(error instanceof CompareError, what);
      assert.equal(error.code, 'BAD_PNG', what);
      assert.match(error.message, /^golden x\.png is not a valid PNG/, what);
      assert.match(error.message, pattern, what);
      return true;
    });
  }
});

test('a zero-sized image is refused', async () => {
  await assert.rejects(decodePng(rawPng(0, 3, 8, 6, new Uint8Array(3))), /0x3/);
});
