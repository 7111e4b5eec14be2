// The capture check on either side of the inflation's chunking: images whose scanlines fit in
// zlib's smallest output chunk, in one chunk, and in more than one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PNG } from 'pngjs';
import { pngProblem } from '../../src/client/image-check.js';
import { listChunks } from '../../src/image/png-chunks.js';

/** An RGB PNG of noise (so it does not compress away), `width` x `height`. */
function png(width: number, height: number): Buffer {
  const image = new PNG({ width, height, colorType: 2, inputHasAlpha: false });
  let seed = width * 31 + height;
  for (let i = 0; i < image.data.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    image.data[i] = i % 4 === 3 ? 255 : seed >>> 24;
  }
  return PNG.sync.write(image, { colorType: 2 });
}

for (const [width, height] of [
  [1, 1],
  [512, 512],
  [2048, 1400],
] as const) {
  test(`a whole ${width}x${height} PNG passes the check`, async () => {
    assert.equal(await pngProblem(png(width, height)), null);
  });
}

test('a PNG whose image data stops early is refused, small or large', async () => {
  for (const [width, height] of [
    [40, 30],
    [2048, 1400],
  ] as const) {
    const bytes = png(width, height);
    const idat = listChunks(bytes, 'the image').find((c) => c.type === 'IDAT')!;
    // The IDAT's length is kept and its data cut: the chunk list then fails, so rewrite it shorter.
    const keep = Math.floor(idat.length / 2);
    const cut = Buffer.concat([
      bytes.subarray(0, idat.dataOffset - 8),
      lengthAndType(keep, 'IDAT'),
      bytes.subarray(idat.dataOffset, idat.dataOffset + keep),
      Buffer.alloc(4),
      bytes.subarray(idat.dataOffset + idat.length + 4),
    ]);
    const problem = await pngProblem(cut);
    assert.match(problem ?? '', /does not decode/, `${width}x${height}: ${problem}`);
  }
});

function lengthAndType(length: number, type: string): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(length, 0);
  b.write(type, 4, 'latin1');
  return b;
}
