import type { Rgb, RgbaImage } from './rgba.js';

/** Fills a float RGB buffer (0..1 per channel) with one colour. */
export function fillRgb(rgb: Float32Array, color: Rgb): void {
  const [r, g, b] = color;
  for (let o = 0; o < rgb.length; o += 3) {
    rgb[o] = r;
    rgb[o + 1] = g;
    rgb[o + 2] = b;
  }
}

/** Whether a Uint32 word holds its lowest byte first, so one RGBA pixel can be stored as one word. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Writes the float RGB pixels of `rgb` (0..1, NaN as 0) as opaque RGBA bytes into `data`, from
 * pixel `first` on. Every rendered pixel passes through here, so on little-endian machines (all
 * that Node.js ships for) a pixel is one word store.
 */
export function packRgb(rgb: Float32Array, data: Uint8Array, first: number): void {
  const count = rgb.length / 3;
  if (LITTLE_ENDIAN) {
    const words = new Uint32Array(data.buffer, data.byteOffset + first * 4, count);
    for (let i = 0, p = 0; p < count; i += 3, p++) {
      const r = rgb[i]!;
      const g = rgb[i + 1]!;
      const b = rgb[i + 2]!;
      words[p] =
        (Math.round((r > 0 ? (r < 1 ? r : 1) : 0) * 255) |
          (Math.round((g > 0 ? (g < 1 ? g : 1) : 0) * 255) << 8) |
          (Math.round((b > 0 ? (b < 1 ? b : 1) : 0) * 255) << 16) |
          0xff000000) >>>
        0;
    }
    return;
  }
  for (let i = 0, o = first * 4; i < rgb.length; i += 3, o += 4) {
    data[o] = to8(rgb[i]!);
    data[o + 1] = to8(rgb[i + 1]!);
    data[o + 2] = to8(rgb[i + 2]!);
    data[o + 3] = 255;
  }
}

/** An opaque image of one colour. */
export function filled(width: number, height: number, color: Rgb): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  fillRect({ width, height, data }, 0, 0, width, height, color);
  return { width, height, data };
}

/** Rectangles this large are filled a row of words at a time; a glyph's dots are cheaper byte by byte than a word view. */
const WORD_FILL_FROM = 64;

/** Paints an opaque rectangle, clipped to the image. */
export function fillRect(image: RgbaImage, x: number, y: number, w: number, h: number, color: Rgb): void {
  const x0 = Math.max(0, x);
  const y0 = Math.max(0, y);
  const x1 = Math.min(image.width, x + w);
  const y1 = Math.min(image.height, y + h);
  if (x1 <= x0 || y1 <= y0) return;
  const r = to8(color[0]);
  const g = to8(color[1]);
  const b = to8(color[2]);
  const data = image.data;
  if (LITTLE_ENDIAN && data.byteOffset % 4 === 0 && (x1 - x0) * (y1 - y0) >= WORD_FILL_FROM) {
    // One word per pixel, filled natively: a contact sheet paints its whole background this way.
    const words = new Int32Array(data.buffer, data.byteOffset, image.width * image.height);
    const word = r | (g << 8) | (b << 16) | (255 << 24);
    if (x0 === 0 && x1 === image.width) words.fill(word, y0 * image.width, y1 * image.width);
    else for (let row = y0; row < y1; row++) words.fill(word, row * image.width + x0, row * image.width + x1);
    return;
  }
  for (let row = y0; row < y1; row++) {
    for (let o = (row * image.width + x0) * 4, end = (row * image.width + x1) * 4; o < end; o += 4) {
      data[o] = r;
      data[o + 1] = g;
      data[o + 2] = b;
      data[o + 3] = 255;
    }
  }
}

/** A 0..1 channel as a byte (clamped; NaN is 0). */
export function to8(v: number): number {
  return Math.round((v > 0 ? (v < 1 ? v : 1) : 0) * 255);
}

/** Copies `src` into `dst` at (x, y), clipped to `dst`. */
export function blit(dst: RgbaImage, src: RgbaImage, x: number, y: number): void {
  const x0 = Math.max(0, x);
  const y0 = Math.max(0, y);
  const x1 = Math.min(dst.width, x + src.width);
  const y1 = Math.min(dst.height, y + src.height);
  if (x1 <= x0) return;
  for (let row = y0; row < y1; row++) {
    const from = ((row - y) * src.width + (x0 - x)) * 4;
    dst.data.set(src.data.subarray(from, from + (x1 - x0) * 4), (row * dst.width + x0) * 4);
  }
}
