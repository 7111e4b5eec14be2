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
 *
 * The filter reads the RGBA pixels in place. A pixel equal to its left neighbour whose upper
 * neighbour equals the upper-left one (whole words compared) filters to zeros in every channel:
 * Paeth then predicts the left byte. Renders are mostly such runs, and the output starts zeroed,
 * so those pixels cost one comparison.
 */
export function encodeRenderPng(image: RgbaImage, alpha: boolean): Uint8Array {
  const { width, height } = image;
  // A word view needs a 4-byte aligned start; a pooled Buffer's slice may not have one.
  const data = image.data.byteOffset % 4 === 0 ? image.data : image.data.slice();
  const bpp = alpha ? 4 : 3;
  const stride = width * bpp + 1;
  const raw = filterBuffer(height * stride);
  const words = new Uint32Array(data.buffer, data.byteOffset, width * height);
  for (let y = 0; y < height; y++) paethRow(data, words, raw, width, bpp, y);
  const compressed = deflateSync(raw, { chunkSize: 32 * 1024, level: 9, strategy: constants.Z_RLE });
  return assemble(width, height, alpha ? 6 : 2, [], compressed);
}

let scratch = new Uint8Array(0);
/** Window grabs up to this many filtered bytes (2048x2048 RGB) reuse one buffer. */
const SCRATCH_MAX = 2048 * (2048 * 3 + 1);

/**
 * A zeroed buffer for the filtered rows. Grabs of one size reuse one: the engine counts every
 * new buffer against the heap's limit until its next full collection, so a buffer per grab
 * made it collect the whole heap every few grabs. deflateSync is done with it on return.
 */
function filterBuffer(length: number): Uint8Array {
  if (length > SCRATCH_MAX) return new Uint8Array(length);
  if (scratch.length === length) return scratch.fill(0);
  scratch = new Uint8Array(length);
  return scratch;
}

/** Row y, Paeth-filtered into `raw` (zeroed) after its filter-type byte. */
function paethRow(data: Uint8Array, words: Uint32Array, raw: Uint8Array, width: number, bpp: number, y: number): void {
  const stride = width * bpp + 1;
  raw[y * stride] = 4;
  const row = y * width;
  const above = row - width;
  for (let x = 0; x < width; x++) {
    const p = row + x;
    if (x > 0 && words[p] === words[p - 1] && (y === 0 || words[above + x] === words[above + x - 1])) continue;
    const out = y * stride + 1 + x * bpp;
    const i = p * 4;
    for (let c = 0; c < bpp; c++) {
      const a = x > 0 ? data[i - 4 + c]! : 0;
      const b = y > 0 ? data[i - width * 4 + c]! : 0;
      const d = x > 0 && y > 0 ? data[i - width * 4 - 4 + c]! : 0;
      raw[out + c] = (data[i + c]! - paeth(a, b, d)) & 0xff;
    }
  }
}

/** PNG's Paeth predictor: of left, up and upper-left, the one nearest to left + up - upper-left. */
function paeth(left: number, up: number, upLeft: number): number {
  const pLeft = up > upLeft ? up - upLeft : upLeft - up;
  const pUp = left > upLeft ? left - upLeft : upLeft - left;
  const s = left + up - 2 * upLeft;
  const pUpLeft = s < 0 ? -s : s;
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
