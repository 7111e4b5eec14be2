import type { RgbaImage } from '../image/rgba.js';

/**
 * The picture of a comparison: the expected image faded to near-white as a backdrop (as
 * pixelmatch draws it), differing pixels in red, ignored (masked) pixels tinted blue so a reader
 * sees what was not judged. The faded backdrop only spans 27 grey levels, so the picture is kept
 * as palette indices: a third of the bytes of RGB to draw, filter and compress.
 */
export interface DiffPicture {
  width: number;
  height: number;
  /** One palette index per pixel. */
  indices: Uint8Array;
  /** RGB triples. */
  palette: Uint8Array;
}

/** Share of the expected image kept in the backdrop (pixelmatch's `alpha`). */
const BACKDROP = 0.1;
/** The darkest backdrop level: black at full opacity fades to 255 - 255 * BACKDROP. */
const FLOOR = 229;
const LEVELS = 256 - FLOOR;
const TINTED = LEVELS;
const RED = 2 * LEVELS;

export const DIFF_PALETTE: Uint8Array = (() => {
  const palette = new Uint8Array((RED + 1) * 3);
  for (let i = 0; i < LEVELS; i++) {
    const v = FLOOR + i;
    palette.set([v, v, v], i * 3);
    palette.set([v - 40, v - 20, v], (TINTED + i) * 3);
  }
  palette.set([255, 0, 0], RED * 3);
  return palette;
})();

/*
 * Backdrop levels are rounded down to steps of 3 grey values: the faded backdrop only gives
 * context, and the coarser steps halve the time to compress a 2048x2048 diff (measured).
 */
const STEP = 3;
function backdropLevel(luma: number, alpha: number): number {
  const level = Math.floor(255 + (luma - 255) * BACKDROP * (alpha / 255) - FLOOR);
  return level <= 0 ? 0 : level - (level % STEP);
}

/** Backdrop level of an opaque pixel by its luma scaled to 0..1023, so the common case is a table look-up. */
const OPAQUE_LEVEL = Uint8Array.from({ length: 1024 }, (_, l) => backdropLevel((l * 255) / 1023, 255));

/** `marks`: one word per pixel, non-zero where pixels differ; `ignored`: one byte per pixel, non-zero where masked. */
export function drawDiff(expected: RgbaImage, marks: Uint32Array, ignored?: Uint8Array): DiffPicture {
  const { width, height, data } = expected;
  const indices = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < indices.length; i++, p += 4) {
    if (marks[i] !== 0) {
      indices[i] = RED;
      continue;
    }
    const a = data[p + 3]!;
    let level: number;
    if (a === 255) {
      // Luma weights scaled to sum 1023 (306 + 600 + 117) over 255: integers only.
      level = OPAQUE_LEVEL[((data[p]! * 306 + data[p + 1]! * 600 + data[p + 2]! * 117) / 255) | 0]!;
    } else {
      level = backdropLevel(data[p]! * 0.29889531 + data[p + 1]! * 0.58662247 + data[p + 2]! * 0.11448223, a);
    }
    indices[i] = (ignored !== undefined && ignored[i] !== 0 ? TINTED : 0) + level;
  }
  return { width, height, indices, palette: DIFF_PALETTE };
}

export function diffToRgba(picture: DiffPicture): RgbaImage {
  const { width, height, indices, palette } = picture;
  const data = new Uint8Array(width * height * 4);
  for (let i = 0, p = 0; i < indices.length; i++, p += 4) {
    const c = indices[i]! * 3;
    data[p] = palette[c]!;
    data[p + 1] = palette[c + 1]!;
    data[p + 2] = palette[c + 2]!;
    data[p + 3] = 255;
  }
  return { width, height, data };
}

/** An image on a larger canvas, transparent where it does not reach. */
export function padTo(image: RgbaImage, width: number, height: number): RgbaImage {
  if (image.width === width && image.height === height) return image;
  const data = new Uint8Array(width * height * 4);
  const rowBytes = image.width * 4;
  for (let y = 0; y < image.height; y++) data.set(image.data.subarray(y * rowBytes, (y + 1) * rowBytes), y * width * 4);
  return { width, height, data };
}
