import { test } from 'node:test';
import assert from 'node:assert/strict';
import pixelmatch from 'pixelmatch';
import { compareImages } from '../../src/compare/compare-images.js';
import { CompareError } from '../../src/image/image-error.js';
import type { RgbaImage } from '../../src/image/rgba.js';
import { card, copy, image, png, pngjsPixels, setPixel } from './images.js';

/** pixelmatch over the whole image, the reference for every count. */
function reference(
  expected: RgbaImage,
  actual: RgbaImage,
  options: { threshold?: number; includeAA?: boolean } = {},
): number {
  return pixelmatch(expected.data, actual.data, undefined, expected.width, expected.height, {
    threshold: 0.1,
    ...options,
  });
}

function fillRect(
  img: RgbaImage,
  x0: number,
  y0: number,
  w: number,
  h: number,
  colour: [number, number, number],
): void {
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) setPixel(img, x, y, colour);
}

const base = card(64, 64);
const changed = copy(base);
fillRect(changed, 20, 30, 10, 10, [255, 0, 255]);

function redPixels(diff: RgbaImage): number {
  let n = 0;
  for (let i = 0; i < diff.data.length; i += 4)
    if (diff.data[i] === 255 && diff.data[i + 1] === 0 && diff.data[i + 2] === 0) n++;
  return n;
}

test('pixel-identical images that are encoded differently are identical', async () => {
  const r = await compareImages(png(base, { filterType: 1 }), png(base, { filterType: 4, colorType: 2 }));
  assert.equal(r.pass, true);
  assert.equal(r.kind, 'identical');
  assert.equal(r.diffPixels, 0);
  assert.equal(r.totalPixels, 4096);
  assert.equal(r.diff, undefined);
  assert.match(r.message, /identical/);
});

test('byte-identical inputs pass without being decoded', async () => {
  // Not a PNG at all: decoding would throw, so passing proves it was skipped.
  const junk = new TextEncoder().encode('these bytes are not an image');
  const r = await compareImages(junk, junk.slice());
  assert.equal(r.pass, true);
  assert.equal(r.kind, 'identical');
  assert.equal(r.actualSize, undefined);
  assert.match(r.message, /byte-identical/);
  // A real PNG still reports its size, read from the header alone.
  const bytes = png(base);
  const again = await compareImages(bytes, bytes.slice());
  assert.deepEqual(again.actualSize, { width: 64, height: 64 });
  assert.equal(again.totalPixels, 4096);
  // Different junk must be decoded, and fails as a bad PNG.
  await assert.rejects(compareImages(junk, new TextEncoder().encode('other bytes')), CompareError);
});

test('a changed block fails with no tolerance and states the numbers', async () => {
  const r = await compareImages(png(changed), png(base));
  assert.equal(reference(base, changed), 100);
  assert.equal(r.pass, false);
  assert.equal(r.kind, 'different');
  assert.equal(r.diffPixels, 100);
  assert.equal(r.totalPixels, 4096);
  assert.equal(r.diffRatio, 100 / 4096);
  assert.deepEqual(r.tolerance, { threshold: 0.1 });
  assert.equal(
    r.message,
    '100 pixels differ (2.441%), allowed 0 pixels (no max_diff_pixels or max_diff_ratio set), threshold 0.1',
  );
});

test('max_diff_pixels and max_diff_ratio decide at their limits', async () => {
  const a = png(changed);
  const e = png(base);
  assert.equal((await compareImages(a, e, { maxDiffPixels: 100 })).kind, 'within-tolerance');
  assert.equal((await compareImages(a, e, { maxDiffPixels: 99 })).kind, 'different');
  const ratioPass = await compareImages(a, e, { maxDiffRatio: 100 / 4096 });
  assert.equal(ratioPass.pass, true);
  const ratioFail = await compareImages(a, e, { maxDiffRatio: 0.02 });
  assert.equal(ratioFail.pass, false);
  assert.equal(ratioFail.message, '100 pixels differ (2.441%), allowed 2.000% (max_diff_ratio), threshold 0.1');
  // Both limits must hold.
  assert.equal((await compareImages(a, e, { maxDiffPixels: 1000, maxDiffRatio: 0.01 })).pass, false);
  assert.match(
    (await compareImages(a, e, { maxDiffPixels: 1000, maxDiffRatio: 0.5 })).message,
    /allowed 1000 pixels \(max_diff_pixels\) and 50\.000% \(max_diff_ratio\)/,
  );
});

test('a size mismatch is a failed result with both sizes and a diff, never a throw', async () => {
  const smaller = card(64, 48);
  const r = await compareImages(png(smaller), png(base));
  assert.equal(r.pass, false);
  assert.equal(r.kind, 'size-mismatch');
  assert.deepEqual(r.actualSize, { width: 64, height: 48 });
  assert.deepEqual(r.expectedSize, { width: 64, height: 64 });
  assert.equal(r.message, 'image sizes differ: actual 64x48, expected 64x64');
  const diff = pngjsPixels(r.diff as Uint8Array);
  assert.equal(diff.width, 64);
  assert.equal(diff.height, 64);
  // The part only the expected image covers is all different.
  assert.ok(r.diffPixels >= 64 * 16);
});

test('masked pixels are not judged and not counted', async () => {
  const r = await compareImages(png(changed), png(base), { masks: [{ x: 18, y: 28, width: 14, height: 14 }] });
  assert.equal(r.pass, true);
  assert.equal(r.kind, 'within-tolerance');
  assert.equal(r.diffPixels, 0);
  assert.equal(r.totalPixels, 4096 - 14 * 14);
  const partly = await compareImages(png(changed), png(base), {
    masks: [
      { x: 20, y: 30, width: 5, height: 10 },
      { x: 60, y: 60, width: 50, height: 50 },
    ],
  });
  assert.equal(partly.diffPixels, 50);
  assert.equal(partly.totalPixels, 4096 - 50 - 16);
});

test('regions judge their pixels by their own tolerance, the rest by the global one', async () => {
  const region = { x: 16, y: 24, width: 20, height: 20, maxDiffPixels: 100, name: 'annotation' };
  const r = await compareImages(png(changed), png(base), { regions: [region] });
  assert.equal(r.pass, true);
  assert.equal(r.regions[0]!.diffPixels, 100);
  assert.equal(r.regions[0]!.totalPixels, 400);
  assert.equal(r.regions[0]!.pass, true);
  assert.equal(r.outside!.diffPixels, 0);
  assert.equal(r.outside!.totalPixels, 4096 - 400);
  assert.equal(r.diffPixels, 100);

  // One more change outside the region fails the global part, and the message says where.
  const both = copy(changed);
  fillRect(both, 50, 5, 2, 2, [0, 255, 0]);
  const r2 = await compareImages(png(both), png(base), { regions: [region] });
  assert.equal(r2.pass, false);
  assert.equal(r2.outside!.diffPixels, 4);
  assert.equal(
    r2.message,
    'outside regions: 4 pixels differ (0.108%), allowed 0 pixels (no max_diff_pixels or max_diff_ratio set), threshold 0.1',
  );

  // A region that allows too little fails on its own numbers.
  const r3 = await compareImages(png(changed), png(base), { regions: [{ ...region, maxDiffPixels: 10 }] });
  assert.equal(r3.pass, false);
  assert.match(r3.message, /^annotation \(16,24 20x20\): 100 pixels differ \(25\.000%\), allowed 10 pixels/);
});

test('a region threshold changes which pixels count inside it only', async () => {
  // A faint change everywhere in two places: one inside the region, one outside.
  const faint = copy(base);
  const shade = (x: number, y: number) => {
    const i = (y * 64 + x) * 4;
    setPixel(faint, x, y, [Math.min(255, base.data[i]! + 40), base.data[i + 1]!, base.data[i + 2]!]);
  };
  for (let y = 2; y < 6; y++) for (let x = 2; x < 6; x++) shade(x, y);
  for (let y = 40; y < 44; y++) for (let x = 40; x < 44; x++) shade(x, y);
  const strict = reference(base, faint, { threshold: 0.05 });
  const loose = reference(base, faint, { threshold: 0.5 });
  assert.ok(strict > 0 && loose === 0, `fixture: ${strict} / ${loose}`);
  const r = await compareImages(png(faint), png(base), {
    threshold: 0.05,
    regions: [{ x: 32, y: 32, width: 32, height: 32, threshold: 0.5 }],
  });
  assert.equal(r.regions[0]!.diffPixels, 0);
  assert.equal(r.outside!.diffPixels, strict / 2);
  assert.equal(r.regions[0]!.tolerance.threshold, 0.5);
});

test('threshold follows pixelmatch: a faint change counts only below its colour distance', async () => {
  const faint = copy(base);
  setPixel(faint, 10, 10, [
    base.data[(10 * 64 + 10) * 4]! ^ 8,
    base.data[(10 * 64 + 10) * 4 + 1]!,
    base.data[(10 * 64 + 10) * 4 + 2]!,
  ]);
  for (const threshold of [0, 0.01, 0.1, 0.3]) {
    const r = await compareImages(png(faint), png(base), { threshold });
    assert.equal(r.diffPixels, reference(base, faint, { threshold }), `threshold ${threshold}`);
  }
  assert.equal((await compareImages(png(faint), png(base), { threshold: 0 })).diffPixels, 1);
  assert.equal((await compareImages(png(faint), png(base))).kind, 'within-tolerance');
});

test('anti-aliased edges are excused by default and counted with includeAA', async () => {
  // A smooth disk drawn with coverage-based anti-aliasing, then moved by one pixel.
  const disk = (cx: number) =>
    image(48, 48, (x, y) => {
      const cover = Math.min(1, Math.max(0, 12 - Math.hypot(x - cx, y - 24) + 0.5));
      return [40 + 200 * cover, 40 + 150 * cover, 40];
    });
  const e = disk(24);
  const a = disk(24.4);
  const excused = await compareImages(png(a), png(e));
  const counted = await compareImages(png(a), png(e), { includeAA: true });
  assert.equal(excused.diffPixels, reference(e, a));
  assert.equal(counted.diffPixels, reference(e, a, { includeAA: true }));
  assert.ok(counted.diffPixels > excused.diffPixels, `${counted.diffPixels} > ${excused.diffPixels}`);
});

test("judging only the rows that differ gives pixelmatch's count on the whole image", async () => {
  // Scattered changes, near edges and in clusters, on a textured card; with and without AA detection.
  for (let seed = 1; seed <= 6; seed++) {
    const e = card(70, 53, seed);
    const a = copy(e);
    let s = seed * 7777;
    const rnd = (n: number) => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) % n;
    for (let k = 0; k < 3 + seed * 4; k++) {
      const x = rnd(70);
      const y = rnd(53);
      fillRect(a, x, y, Math.min(1 + rnd(4), 70 - x), Math.min(1 + rnd(3), 53 - y), [rnd(256), rnd(256), rnd(256)]);
    }
    for (const includeAA of [false, true]) {
      const r = await compareImages(a, e, { includeAA, diff: 'none' });
      assert.equal(r.diffPixels, reference(e, a, { includeAA }), `seed ${seed} includeAA ${includeAA}`);
    }
  }
  // A one-pixel shift of textured content with sharp and smooth edges: most pixels differ a little.
  const scene = (dx: number) =>
    image(90, 70, (x, y) => {
      const grain = (Math.imul((x - dx) * 7919 + y * 104729, 2654435761) >>> 24) & 31;
      const cover = Math.min(1, Math.max(0, 15 - Math.hypot(x - dx - 40, y - 30) + 0.5));
      const line = x - dx === 60 ? 200 : 0;
      return [60 + grain + 150 * cover, 40 + y * 2 + line, 90 + grain / 2 + line];
    });
  for (const threshold of [0, 0.05, 0.1, 0.2]) {
    for (const includeAA of [false, true]) {
      const r = await compareImages(scene(1), scene(0), { threshold, includeAA, diff: 'none' });
      assert.equal(
        r.diffPixels,
        reference(scene(0), scene(1), { threshold, includeAA }),
        `shift, threshold ${threshold} includeAA ${includeAA}`,
      );
    }
  }
  // Translucent pixels take the whole-image path; the count is the same.
  const te = image(30, 30, (x, y) => [x * 8, y * 8, 100, 100 + x]);
  const ta = copy(te);
  setPixel(ta, 3, 4, [255, 255, 255, 20]);
  assert.equal((await compareImages(ta, te)).diffPixels, reference(te, ta));
});

test('pixels near the threshold are judged as pixelmatch judges them, tile by tile', async () => {
  // Sparse pixels whose colour distance lies just around each threshold's limit: a tile is judged
  // only when one of its pixels is over the limit, so one misjudged by the scan would be missed.
  const e = card(384, 256, 9);
  // pixelmatch's YIQ distance of a difference of 1 in the channels moved: grey, or red alone.
  const unit = (d: [number, number, number]) => {
    const y = d[0] * 0.29889531 + d[1] * 0.58662247 + d[2] * 0.11448223;
    const i = d[0] * 0.59597799 - d[1] * 0.2741761 - d[2] * 0.32180189;
    const q = d[0] * 0.21147017 - d[1] * 0.52261711 + d[2] * 0.31114694;
    return 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
  };
  for (const threshold of [0.05, 0.1, 0.15, 0.2]) {
    const a = copy(e);
    let s = Math.round(threshold * 1000);
    const rnd = (n: number) => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) % n;
    // One pixel in each 32x32 block, so nothing else makes its block worth judging.
    for (let by = 0; by < 256; by += 32) {
      for (let bx = 0; bx < 384; bx += 32) {
        const o = ((by + 2 + rnd(28)) * 384 + bx + 2 + rnd(28)) * 4;
        const grey = rnd(2) === 0;
        const step = Math.round(
          Math.sqrt((35215 * threshold * threshold) / unit(grey ? [1, 1, 1] : [1, 0, 0])) * (0.94 + rnd(13) / 100),
        );
        for (const c of grey ? [0, 1, 2] : [0]) a.data[o + c] = Math.max(0, Math.min(255, e.data[o + c]! - step));
      }
    }
    for (const includeAA of [false, true]) {
      const r = await compareImages(a, e, { threshold, includeAA, diff: 'none' });
      assert.equal(
        r.diffPixels,
        reference(e, a, { threshold, includeAA }),
        `threshold ${threshold} includeAA ${includeAA}`,
      );
      assert.ok(r.diffPixels > 10 && r.diffPixels < 86, `threshold ${threshold}: ${r.diffPixels} of 96 counted`);
    }
  }
});

test('the diff picture marks counted pixels in red over a faded backdrop', async () => {
  const r = await compareImages(png(changed), png(base));
  const diff = pngjsPixels(r.diff as Uint8Array);
  assert.equal(diff.width, 64);
  assert.equal(redPixels(diff), 100);
  // The backdrop is faded towards white.
  assert.ok(diff.data[0]! >= 229 && diff.data[3] === 255);
  const rgba = await compareImages(png(changed), png(base), { diff: 'rgba' });
  assert.deepEqual((rgba.diff as RgbaImage).data, diff.data);
  assert.equal((await compareImages(png(changed), png(base), { diff: 'none' })).diff, undefined);
  assert.equal((await compareImages(png(changed), png(base), { maxDiffPixels: 100 })).diff, undefined);
});

test('decoded images are accepted, also at an odd offset, and checked', async () => {
  const buffer = new Uint8Array(changed.data.length + 1);
  buffer.set(changed.data, 1);
  const odd = { width: 64, height: 64, data: buffer.subarray(1) };
  const r = await compareImages(odd, png(base));
  assert.equal(r.diffPixels, 100);
  await assert.rejects(
    compareImages({ width: 64, height: 64, data: new Uint8Array(10) }, base),
    (error: unknown) =>
      error instanceof CompareError && error.code === 'BAD_IMAGE' && /actual image is 64x64/.test(error.message),
  );
});

test('unreadable input and invalid options are typed errors', async () => {
  await assert.rejects(
    compareImages(png(base).subarray(0, 50), png(base)),
    (error: unknown) =>
      error instanceof CompareError &&
      error.code === 'BAD_PNG' &&
      /^the actual image is not a valid PNG/.test(error.message),
  );
  for (const options of [
    { threshold: 2 },
    { maxDiffRatio: -0.1 },
    { maxDiffPixels: 1.5 },
    { masks: [{ x: 0, y: 0, width: 0, height: 3 }] },
    { regions: [{ x: -1, y: 0, width: 2, height: 2 }] },
  ]) {
    await assert.rejects(
      compareImages(png(changed), png(base), options),
      (error: unknown) => error instanceof CompareError && error.code === 'BAD_OPTIONS',
      JSON.stringify(options),
    );
  }
});
