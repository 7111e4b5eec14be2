import pixelmatch from 'pixelmatch';
import type { Rect, RgbaImage } from './image.js';

export interface PixelJudge {
  threshold: number;
  /** pixelmatch's `includeAA`: false (the default) excuses anti-aliased pixels. */
  includeAA: boolean;
}

/** Rows of differing pixels close enough to be judged in one pixelmatch call. */
interface Band {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/*
 * pixelmatch's anti-aliasing test looks at a pixel's neighbours and at their neighbours, so a
 * pixel's verdict depends on everything within two pixels of it. A crop padded by two pixels
 * therefore judges its inner pixels exactly as a whole-image call would.
 */
const CONTEXT = 2;
/** Above this share of the image, cropping costs more in copies than it saves. */
const CROP_LIMIT = 0.5;

function words(data: Uint8Array): Uint32Array {
  return new Uint32Array(data.buffer, data.byteOffset, data.length >> 2);
}

/**
 * Marks in `marks` (one word per pixel, non-zero = differs) every pixel of `area` that pixelmatch
 * counts as different, and returns how many there are. Only pixels whose 32-bit words differ
 * can differ, so the images are scanned word by word first and pixelmatch runs only on the
 * padded rectangles around differing rows; a byte-identical area costs one scan. Both images
 * must have the same size and 4-byte aligned data.
 */
export function markDifferences(expected: RgbaImage, actual: RgbaImage, area: Rect, judge: PixelJudge, marks: Uint32Array): number {
  const { width, height } = expected;
  const e32 = words(expected.data);
  const a32 = words(actual.data);
  const bands = findBands(expected.data, actual.data, e32, a32, width, area);
  if (bands.length === 0) return 0;
  const crops = bands.map((b) => padded(b, width, height));
  const cropArea = crops.reduce((n, c) => n + c.width * c.height, 0);
  if (cropArea > CROP_LIMIT * width * height || !crops.every((c) => opaque(expected.data, actual.data, width, c))) {
    return judgeWhole(expected, actual, area, judge, marks);
  }
  let count = 0;
  bands.forEach((band, i) => {
    count += judgeCrop(expected, actual, crops[i]!, band, judge, marks);
  });
  return count;
}

function findBands(expected: Uint8Array, actual: Uint8Array, e32: Uint32Array, a32: Uint32Array, width: number, area: Rect): Band[] {
  const bands: Band[] = [];
  let band: Band | undefined;
  const xEnd = area.x + area.width;
  // Equal rows, the common case, are skipped by a native memory compare.
  const e = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  for (let y = area.y; y < area.y + area.height; y++) {
    const row = y * width;
    if (e.compare(actual, (row + area.x) * 4, (row + xEnd) * 4, (row + area.x) * 4, (row + xEnd) * 4) === 0) continue;
    let first = -1;
    for (let x = area.x; x < xEnd; x++) {
      if (e32[row + x] !== a32[row + x]) {
        first = x;
        break;
      }
    }
    if (first < 0) continue;
    let last = first;
    for (let x = xEnd - 1; x > first; x--) {
      if (e32[row + x] !== a32[row + x]) {
        last = x;
        break;
      }
    }
    // Rows this close would share their padding anyway.
    if (band && y - band.y1 <= 2 * CONTEXT) {
      band.y1 = y + 1;
      band.x0 = Math.min(band.x0, first);
      band.x1 = Math.max(band.x1, last + 1);
    } else {
      band = { x0: first, x1: last + 1, y0: y, y1: y + 1 };
      bands.push(band);
    }
  }
  return bands;
}

function padded(band: Band, width: number, height: number): Rect {
  const x = Math.max(0, band.x0 - CONTEXT);
  const y = Math.max(0, band.y0 - CONTEXT);
  return { x, y, width: Math.min(width, band.x1 + CONTEXT) - x, height: Math.min(height, band.y1 + CONTEXT) - y };
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
    return pixelmatch(expected.data, actual.data, new Uint8Array(marks.buffer, marks.byteOffset, marks.byteLength), width, height, options(judge));
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

function judgeCrop(expected: RgbaImage, actual: RgbaImage, crop: Rect, band: Band, judge: PixelJudge, marks: Uint32Array): number {
  const width = expected.width;
  const size = crop.width * crop.height * 4;
  const e = new Uint8Array(size);
  const a = new Uint8Array(size);
  const rowBytes = crop.width * 4;
  for (let y = 0; y < crop.height; y++) {
    const from = ((crop.y + y) * width + crop.x) * 4;
    e.set(expected.data.subarray(from, from + rowBytes), y * rowBytes);
    a.set(actual.data.subarray(from, from + rowBytes), y * rowBytes);
  }
  const out = new Uint8Array(size);
  pixelmatch(e, a, out, crop.width, crop.height, options(judge));
  const o32 = words(out);
  let count = 0;
  for (let y = band.y0; y < band.y1; y++) {
    const cropRow = (y - crop.y) * crop.width - crop.x;
    for (let x = band.x0; x < band.x1; x++) {
      if (o32[cropRow + x] !== 0) {
        marks[y * width + x] = o32[cropRow + x]!;
        count++;
      }
    }
  }
  return count;
}
