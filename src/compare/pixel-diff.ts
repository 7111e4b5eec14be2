import pixelmatch from 'pixelmatch';
import type { Rect, RgbaImage } from '../image/rgba.js';

export interface PixelJudge {
  threshold: number;
  /** pixelmatch's `includeAA`: false (the default) excuses anti-aliased pixels. */
  includeAA: boolean;
}

/*
 * pixelmatch's anti-aliasing test looks at a pixel's neighbours and at their neighbours, so a
 * pixel's verdict depends on everything within two pixels of it. A crop padded by two pixels
 * therefore judges its inner pixels exactly as a whole-image call would.
 */
const CONTEXT = 2;
/** Side of the square tiles that are judged separately; measured against 16, 64 and 128 on 2048x2048 pairs. */
const TILE = 32;
/** Above this share of the image, cropping costs more in copies than it saves. */
const CROP_LIMIT = 0.5;

function words(data: Uint8Array): Uint32Array {
  return new Uint32Array(data.buffer, data.byteOffset, data.length >> 2);
}

/*
 * pixelmatch's colour distance of two opaque pixels is a quadratic form in the channel
 * differences; with every channel differing by at most m it is at most 1.1439 m^2 (the sum of
 * each YIQ row's absolute weights, squared and weighted). A pixel whose channels all differ by
 * no more than the largest m with 1.15 m^2 <= the threshold's limit can neither count nor be
 * tested for anti-aliasing; that bound is checked first, with integers. A pixel past it has its
 * distance computed as pixelmatch computes it (the same operations in the same order, so the
 * same number), and only a pixel over the limit makes its tile worth judging. On a one-pixel
 * shift of a textured image nearly every word differs, a fifth of the 32x32 tiles hold a
 * channel past the bound and 3% hold a pixel over the limit.
 */
function negligibleChannelDelta(threshold: number): number {
  // The channel test reads bytes out of words in little-endian order; elsewhere every differing word is judged.
  if (!LITTLE_ENDIAN) return -1;
  return Math.floor(Math.sqrt((35215 * threshold * threshold) / 1.15));
}

/** pixelmatch's `colorDelta` of two opaque pixels (`expected` minus `actual` per channel), without its sign. */
function opaqueDelta(dr: number, dg: number, db: number): number {
  const y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
  const i = dr * 0.59597799 - dg * 0.2741761 - db * 0.32180189;
  const q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
  return 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * Marks in `marks` (one word per pixel, non-zero = differs) every pixel of `area` that pixelmatch
 * counts as different, and returns how many there are. The images are scanned word by word
 * (equal rows by a native compare) for pixels that could count; pixelmatch then runs only on the
 * tiles holding such pixels, each padded by two pixels of context. Both images must have the
 * same size and 4-byte aligned data.
 */
export function markDifferences(
  expected: RgbaImage,
  actual: RgbaImage,
  area: Rect,
  judge: PixelJudge,
  marks: Uint32Array,
): number {
  const { width, height } = expected;
  const tiles = hotTiles(expected, actual, area, judge.threshold);
  if (tiles.length === 0) return 0;
  const crops = tiles.map((t) => padded(t, width, height));
  const cropArea = crops.reduce((n, c) => n + c.width * c.height, 0);
  if (cropArea > CROP_LIMIT * width * height || !crops.every((c) => opaque(expected.data, actual.data, width, c))) {
    return judgeWhole(expected, actual, area, judge, marks);
  }
  let count = 0;
  tiles.forEach((tile, i) => {
    count += judgeCrop(expected, actual, crops[i]!, tile, judge, marks);
  });
  return count;
}

/** The tiles (clipped to `area`) holding at least one pixel pixelmatch may count: translucent, or over the limit. */
function hotTiles(expected: RgbaImage, actual: RgbaImage, area: Rect, threshold: number): Rect[] {
  const slack = negligibleChannelDelta(threshold);
  const limit = 35215 * threshold * threshold;
  const { width } = expected;
  const e32 = words(expected.data);
  const a32 = words(actual.data);
  const e = Buffer.from(expected.data.buffer, expected.data.byteOffset, expected.data.byteLength);
  const tilesX = Math.ceil(width / TILE);
  const hot = new Uint8Array(tilesX * Math.ceil(expected.height / TILE));
  const xEnd = area.x + area.width;
  for (let y = area.y; y < area.y + area.height; y++) {
    const row = y * width;
    if (e.compare(actual.data, (row + area.x) * 4, (row + xEnd) * 4, (row + area.x) * 4, (row + xEnd) * 4) === 0)
      continue;
    const tileRow = ((y / TILE) | 0) * tilesX;
    for (let x = area.x; x < xEnd; x++) {
      const p = e32[row + x]!;
      const q = a32[row + x]!;
      if (p === q) continue;
      // Channels in memory order R, G, B, A are the word's bytes from the lowest (little-endian).
      const dr = (p & 255) - (q & 255);
      const dg = ((p >>> 8) & 255) - ((q >>> 8) & 255);
      const db = ((p >>> 16) & 255) - ((q >>> 16) & 255);
      if (
        slack < 0 ||
        p >>> 24 !== 255 ||
        q >>> 24 !== 255 ||
        ((Math.abs(dr) > slack || Math.abs(dg) > slack || Math.abs(db) > slack) && opaqueDelta(dr, dg, db) > limit)
      ) {
        hot[tileRow + ((x / TILE) | 0)] = 1;
        // The rest of this tile's row adds nothing: skip to the next tile.
        x = Math.min(xEnd, ((x / TILE) | 0) * TILE + TILE) - 1;
      }
    }
  }
  const tiles: Rect[] = [];
  hot.forEach((h, i) => {
    if (h === 0) return;
    const x = (i % tilesX) * TILE;
    const y = ((i / tilesX) | 0) * TILE;
    const x0 = Math.max(x, area.x);
    const y0 = Math.max(y, area.y);
    tiles.push({
      x: x0,
      y: y0,
      width: Math.min(x + TILE, xEnd) - x0,
      height: Math.min(y + TILE, area.y + area.height) - y0,
    });
  });
  return tiles;
}

function padded(tile: Rect, width: number, height: number): Rect {
  const x = Math.max(0, tile.x - CONTEXT);
  const y = Math.max(0, tile.y - CONTEXT);
  return {
    x,
    y,
    width: Math.min(width, tile.x + tile.width + CONTEXT) - x,
    height: Math.min(height, tile.y + tile.height + CONTEXT) - y,
  };
}

/*
 * pixelmatch blends translucent pixels against a checkerboard indexed by the byte offset in the
 * image, so a crop would see a different checkerboard; crops are used only where every pixel
 * of both images is opaque.
 */
function opaque(e: Uint8Array, a: Uint8Array, width: number, rect: Rect): boolean {
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const end = ((y * width + rect.x + rect.width) << 2) + 3;
    for (let i = ((y * width + rect.x) << 2) + 3; i < end; i += 4) if (e[i] !== 255 || a[i] !== 255) return false;
  }
  return true;
}

function options(judge: PixelJudge): Parameters<typeof pixelmatch>[5] {
  // A mask output draws only counted pixels, in diffColor, over zeros: a pixel differs iff its word is not 0.
  return { threshold: judge.threshold, includeAA: judge.includeAA, diffMask: true, diffColor: [255, 0, 0] };
}

function judgeWhole(expected: RgbaImage, actual: RgbaImage, area: Rect, judge: PixelJudge, marks: Uint32Array): number {
  const { width, height } = expected;
  if (area.width === width && area.height === height) {
    // The marks are pixelmatch's own mask output: no copy, and its count is the answer.
    return pixelmatch(
      expected.data,
      actual.data,
      new Uint8Array(marks.buffer, marks.byteOffset, marks.byteLength),
      width,
      height,
      options(judge),
    );
  }
  const out = new Uint8Array(width * height * 4);
  pixelmatch(expected.data, actual.data, out, width, height, options(judge));
  const o32 = words(out);
  let count = 0;
  for (let y = area.y; y < area.y + area.height; y++) {
    const end = y * width + area.x + area.width;
    for (let i = y * width + area.x; i < end; i++) {
      if (o32[i] !== 0) {
        marks[i] = o32[i]!;
        count++;
      }
    }
  }
  return count;
}

/** Scratch buffers for the crops, reused: hundreds of small allocations per comparison cost more than the judging. */
const scratch = { e: new Uint32Array(0), a: new Uint32Array(0), out: new Uint32Array(0) };

function judgeCrop(
  expected: RgbaImage,
  actual: RgbaImage,
  crop: Rect,
  tile: Rect,
  judge: PixelJudge,
  marks: Uint32Array,
): number {
  const width = expected.width;
  const size = crop.width * crop.height;
  if (scratch.e.length < size) {
    scratch.e = new Uint32Array(size);
    scratch.a = new Uint32Array(size);
    scratch.out = new Uint32Array(size);
  }
  const e32 = words(expected.data);
  const a32 = words(actual.data);
  const e = scratch.e;
  const a = scratch.a;
  for (let y = 0, o = 0; y < crop.height; y++) {
    for (let i = (crop.y + y) * width + crop.x, end = i + crop.width; i < end; i++, o++) {
      e[o] = e32[i]!;
      a[o] = a32[i]!;
    }
  }
  const out = scratch.out;
  out.fill(0, 0, size);
  const bytes = (w: Uint32Array) => new Uint8Array(w.buffer, 0, size * 4);
  pixelmatch(bytes(e), bytes(a), bytes(out), crop.width, crop.height, options(judge));
  let count = 0;
  for (let y = tile.y; y < tile.y + tile.height; y++) {
    const cropRow = (y - crop.y) * crop.width - crop.x;
    for (let x = tile.x; x < tile.x + tile.width; x++) {
      const m = out[cropRow + x]!;
      if (m !== 0) {
        marks[y * width + x] = m;
        count++;
      }
    }
  }
  return count;
}
