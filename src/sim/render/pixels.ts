import type { Rgb, RgbaImage } from './types.js';

/** Float RGB (0..1) to 8-bit RGBA, opaque. */
export function toRgba(width: number, height: number, rgb: Float32Array): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0, o = 0; i < rgb.length; i += 3, o += 4) {
    data[o] = Math.round(Math.min(Math.max(rgb[i]!, 0), 1) * 255);
    data[o + 1] = Math.round(Math.min(Math.max(rgb[i + 1]!, 0), 1) * 255);
    data[o + 2] = Math.round(Math.min(Math.max(rgb[i + 2]!, 0), 1) * 255);
    data[o + 3] = 255;
  }
  return { width, height, data };
}

export function filled(width: number, height: number, color: Rgb): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  const r = Math.round(color[0] * 255);
  const g = Math.round(color[1] * 255);
  const b = Math.round(color[2] * 255);
  for (let o = 0; o < data.length; o += 4) {
    data[o] = r;
    data[o + 1] = g;
    data[o + 2] = b;
    data[o + 3] = 255;
  }
  return { width, height, data };
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
