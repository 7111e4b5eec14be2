// Small images for the comparison tests, built pixel by pixel and encoded with pngjs (never with
// the code under test), plus hand-built PNG variants that pngjs cannot write.
import { deflateSync } from 'node:zlib';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG, type PNGOptions } from 'pngjs';
import type { RgbaImage } from '../../src/image/rgba.js';
import { makeChunk, PNG_SIGNATURE } from '../../src/image/png-chunks.js';

export type Pixel = [number, number, number, number?];

export function image(width: number, height: number, pixel: (x: number, y: number) => Pixel): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b, a = 255] = pixel(x, y);
      data.set([r, g, b, a], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

/** A textured test card: gradients with a pseudo-random grain, so every filter and crop path has work. */
export function card(width: number, height: number, seed = 1): RgbaImage {
  return image(width, height, (x, y) => {
    const grain = (Math.imul(x * 7919 + y * 104729 + seed, 2654435761) >>> 24) & 15;
    return [(x * 255) / width + grain, (y * 255) / height, ((x + y) * 3 + grain * 5) & 255];
  });
}

export function setPixel(img: RgbaImage, x: number, y: number, [r, g, b, a = 255]: Pixel): void {
  img.data.set([r, g, b, a], (y * img.width + x) * 4);
}

export function copy(img: RgbaImage): RgbaImage {
  return { width: img.width, height: img.height, data: img.data.slice() };
}

export function png(img: RgbaImage, options: PNGOptions = {}): Uint8Array {
  const p = new PNG({ width: img.width, height: img.height });
  p.data = Buffer.from(img.data);
  return new Uint8Array(PNG.sync.write(p, options));
}

/** pngjs's reading of PNG bytes, the reference the fast decoder must agree with. */
export function pngjsPixels(bytes: Uint8Array): RgbaImage {
  const p = PNG.sync.read(Buffer.from(bytes));
  return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
}

/** A PNG assembled from raw scanline bytes (each row already carries its filter byte). */
export function rawPng(
  width: number,
  height: number,
  bitDepth: number,
  colorType: number,
  scanlines: Uint8Array,
  extra: Uint8Array[] = [],
  interlace = 0,
): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([bitDepth, colorType, 0, 0, interlace], 8);
  const parts = [
    PNG_SIGNATURE,
    makeChunk('IHDR', ihdr),
    ...extra,
    makeChunk('IDAT', deflateSync(scanlines)),
    makeChunk('IEND', new Uint8Array(0)),
  ];
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

/** Rows of `bytesPerRow` bytes produced by `byte(x, y)`, each preceded by filter 0. */
export function rows(height: number, bytesPerRow: number, byte: (i: number, y: number) => number): Uint8Array {
  const out = new Uint8Array(height * (bytesPerRow + 1));
  for (let y = 0; y < height; y++)
    for (let i = 0; i < bytesPerRow; i++) out[y * (bytesPerRow + 1) + 1 + i] = byte(i, y) & 255;
  return out;
}

/** An Adam7-interlaced 8-bit RGB PNG of the pixels `pixel(x, y)`. */
export function interlacedRgb(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number],
): Uint8Array {
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ] as const;
  const bytes: number[] = [];
  for (const [x0, y0, dx, dy] of passes) {
    for (let y = y0; y < height; y += dy) {
      const row: number[] = [];
      for (let x = x0; x < width; x += dx) row.push(...pixel(x, y));
      if (row.length > 0) bytes.push(0, ...row);
    }
  }
  return rawPng(width, height, 8, 2, Uint8Array.from(bytes), [], 1);
}

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-compare-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
