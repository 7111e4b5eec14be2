/*
 * Undoing PNG's scanline filters, a pixel per 32-bit word: the rows of the fast decoder
 * (png-decode.ts) go through here. Kept apart from the stream and chunk handling so each stays
 * small enough to read.
 */

/** OR-ed into an RGB pixel's word: its fourth byte, alpha, opaque. */
export const ALPHA = 0xff000000 | 0;

/** Three bytes per pixel into one word per pixel, the fourth byte 0. */
export function packRgb(line: Uint8Array, words: Int32Array, width: number): void {
  for (let x = 0, i = 0; x < width; x++, i += 3) words[x] = line[i]! | (line[i + 1]! << 8) | (line[i + 2]! << 16);
}

/*
 * Byte-wise addition and floor average of four bytes packed in a 32-bit word, without carries
 * between the bytes (SWAR). Every filter treats each byte of a pixel alike, so one word holds a
 * whole pixel: RGBA as it is, RGB packed with a fourth byte that `opaque` overwrites.
 */
const LOW7 = 0x7f7f7f7f;
const HIGH = 0x80808080 | 0;
function addBytes(a: number, b: number): number {
  return (((a & LOW7) + (b & LOW7)) | 0) ^ ((a ^ b) & HIGH);
}
function avgBytes(a: number, b: number): number {
  return ((a & b) + (((a ^ b) >>> 1) & LOW7)) | 0;
}

/** PNG's Paeth predictor for one byte: of left, up and upper-left, the one nearest to left + up - upper-left. */
function paethByte(a: number, b: number, c: number): number {
  const pa = b > c ? b - c : c - b;
  const pb = a > c ? a - c : c - a;
  const s = a + b - c - c;
  const pc = s < 0 ? -s : s;
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function paethWord(a: number, b: number, c: number): number {
  return (
    paethByte(a & 255, b & 255, c & 255) |
    (paethByte((a >>> 8) & 255, (b >>> 8) & 255, (c >>> 8) & 255) << 8) |
    (paethByte((a >>> 16) & 255, (b >>> 16) & 255, (c >>> 16) & 255) << 16) |
    (paethByte(a >>> 24, b >>> 24, c >>> 24) << 24)
  );
}

/**
 * A row of the filters that treat a pixel as a whole word (None, Sub, Up, Avg, and Paeth on the
 * first row, where it is Sub) unfiltered into `out` at pixel `r`; `p` is the row above, -1 on
 * the first row.
 */
export function unfilterWords(
  filter: number,
  line: Int32Array,
  out: Int32Array,
  r: number,
  p: number,
  width: number,
  opaque: number,
): void {
  switch (filter) {
    case 0:
      for (let x = 0; x < width; x++) out[r + x] = line[x]! | opaque;
      return;
    case 1:
      subRow(line, out, r, width, opaque);
      return;
    case 2:
      if (p < 0) for (let x = 0; x < width; x++) out[r + x] = line[x]! | opaque;
      else for (let x = 0; x < width; x++) out[r + x] = addBytes(line[x]!, out[p + x]!) | opaque;
      return;
    case 3: {
      let left = 0;
      if (p < 0) for (let x = 0; x < width; x++) out[r + x] = left = addBytes(line[x]!, (left >>> 1) & LOW7) | opaque;
      else for (let x = 0; x < width; x++) out[r + x] = left = addBytes(line[x]!, avgBytes(left, out[p + x]!)) | opaque;
      return;
    }
    default:
      // Paeth: with no row above it always picks the left neighbour, which is the Sub filter.
      subRow(line, out, r, width, opaque);
  }
}

function subRow(line: Int32Array, out: Int32Array, r: number, width: number, opaque: number): void {
  let left = 0;
  for (let x = 0; x < width; x++) out[r + x] = left = addBytes(line[x]!, left) | opaque;
}

/**
 * A Paeth row, reading the filtered bytes where they lie (RGB) or as words (RGBA). Where the
 * pixel above equals the one above-left (most of a rendered image), Paeth predicts the left pixel
 * in every byte, which spares the per-byte predictor, and a zero filtered pixel is that pixel.
 */
export function paethRow(
  line: Uint8Array,
  words: Int32Array,
  bpp: number,
  out: Int32Array,
  r: number,
  p: number,
  width: number,
  opaque: number,
): void {
  let left = 0;
  let upLeft = 0;
  for (let x = 0, i = 0; x < width; x++, i += 3) {
    const up = out[p + x]!;
    const f = bpp === 4 ? words[x]! : line[i]! | (line[i + 1]! << 8) | (line[i + 2]! << 16);
    if (up !== upLeft) left = addBytes(f, paethWord(left, up, upLeft)) | opaque;
    else if (f !== 0) left = addBytes(f, left) | opaque;
    out[r + x] = left;
    upLeft = up;
  }
}
