import { constants, createDeflate, deflate, deflateSync } from 'node:zlib';
import { promisify } from 'node:util';
import { makeChunk, PNG_SIGNATURE, concatBytes } from './png-chunks.js';
import type { RgbaImage } from './rgba.js';

const deflateAsync = promisify(deflate);

/*
 * The one PNG writer of the project. Hand-written rather than pngjs: pngjs writes only from RGBA
 * and tries every filter on every row, while what wbplay writes has one shape each, encoded the
 * way measurement found fastest for it: diff pictures as palette indices, window captures
 * Paeth-filtered, contact sheets as RGB bands.
 */

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
  const words = new Int32Array(data.buffer, data.byteOffset, width * height);
  for (let y = 0; y < height; y++) paethRow(words, raw, width, bpp, y);
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

/** Where the bytes of a pixel sit in its word: the first (red) is the lowest on little-endian machines. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
const FIRST_BYTE = LITTLE_ENDIAN ? 0 : 24;
const NEXT_BYTE = LITTLE_ENDIAN ? 8 : -8;

/**
 * Row y of the picture (one word per pixel), Paeth-filtered into `raw` (zeroed) after its
 * filter-type byte. The pixels left, up and up-left are carried along as words.
 */
function paethRow(words: Int32Array, raw: Uint8Array, width: number, bpp: number, y: number): void {
  const start = y * (width * bpp + 1) + 1;
  raw[start - 1] = 4;
  const row = y * width;
  const up = row - width;
  const above = y > 0;
  let left = 0;
  let upLeft = 0;
  for (let x = 0; x < width; x++) {
    const cur = words[row + x]!;
    const upper = above ? words[up + x]! : 0;
    if (cur !== left || upper !== upLeft || x === 0) {
      const out = start + x * bpp;
      for (let c = 0, shift = FIRST_BYTE; c < bpp; c++, shift += NEXT_BYTE) {
        const predicted = paeth((left >>> shift) & 255, (upper >>> shift) & 255, (upLeft >>> shift) & 255);
        raw[out + c] = (cur >>> shift) - predicted;
      }
    }
    left = cur;
    upLeft = upper;
  }
}

/**
 * Row y of the picture (one word per pixel) as RGB, Up-filtered into row `to` of `raw` (zeroed)
 * after its filter-type byte; `above`: row y - 1 is the row above it in the PNG, otherwise it
 * is the PNG's first row. A pixel equal to the one above filters to
 * zeros, so the margins and flat areas of a sheet cost one comparison per pixel.
 */
function upRow(words: Int32Array, raw: Uint8Array, width: number, y: number, to: number, above: boolean): void {
  const start = to * (width * 3 + 1) + 1;
  raw[start - 1] = 2;
  const row = y * width;
  const up = row - width;
  for (let x = 0, out = start; x < width; x++, out += 3) {
    const cur = words[row + x]!;
    const upper = above ? words[up + x]! : 0;
    if (cur === upper) continue;
    raw[out] = (cur >>> FIRST_BYTE) - (upper >>> FIRST_BYTE);
    raw[out + 1] = (cur >>> (FIRST_BYTE + NEXT_BYTE)) - (upper >>> (FIRST_BYTE + NEXT_BYTE));
    raw[out + 2] = (cur >>> (FIRST_BYTE + 2 * NEXT_BYTE)) - (upper >>> (FIRST_BYTE + 2 * NEXT_BYTE));
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

/**
 * An opaque picture too large to hold twice (a contact sheet) written as an RGB PNG a band of
 * rows at a time: each band is filtered here and deflated on the thread pool while the caller
 * draws the next, so no more than two bands of filtered rows and the compressed stream are ever
 * held. The Up filter with zlib level 1 was the best of the filters (None, Sub, Up, Paeth) and
 * levels (1-9; default, filtered and run-length strategies) measured on contact sheets of flat
 * renders and of textured ones: Paeth made files 2-3% smaller and took two to three times as
 * long to filter, level 6 made them 10-45% smaller and took four to six times as long to
 * deflate, run-length was as fast on flat renders but 70% larger on textured ones.
 */
export class RgbPngWriter {
  private readonly deflater = createDeflate({ level: 1, chunkSize: 256 * 1024 });
  private readonly compressed: Buffer[] = [];
  private readonly ended: Promise<void>;
  private readonly stride: number;
  /** The rows zlib has not finished with yet, and the buffer it finished with last. */
  private inFlight: Promise<void> = Promise.resolve();
  private spare: Uint8Array | undefined;
  private rows = 0;
  private failure: Error | undefined;

  constructor(
    private readonly width: number,
    private readonly height: number,
  ) {
    this.stride = width * 3 + 1;
    this.deflater.on('data', (piece: Buffer) => this.compressed.push(piece));
    this.ended = new Promise((resolve, reject) => {
      this.deflater.once('end', resolve);
      this.deflater.once('error', (error) => {
        this.failure = error;
        reject(error);
      });
    });
    // Rejections are taken by write() and finish(); this keeps an early one from going unhandled.
    this.ended.catch(() => undefined);
  }

  /**
   * Rows `from` to `to` (exclusive) of `band`, an RGBA picture as wide as the PNG and opaque.
   * Row `from - 1` of `band` must be the PNG's row above them unless they are its first rows.
   * The rows are filtered before the call returns its promise, so `band` may be drawn on again
   * at once; the promise settles when the rows before these have been compressed.
   */
  async write(band: RgbaImage, from: number, to: number): Promise<void> {
    if (band.width !== this.width || to > band.height || from < 0 || (from === 0 && this.rows > 0))
      throw new RangeError(`rows ${from}-${to} of a ${band.width}x${band.height} band cannot follow row ${this.rows}`);
    if (this.rows + to - from > this.height) throw new RangeError(`more than ${this.height} rows`);
    const length = (to - from) * this.stride;
    const raw = this.spare?.length === length ? this.spare.fill(0) : new Uint8Array(length);
    this.spare = undefined;
    const data = band.data.byteOffset % 4 === 0 ? band.data : band.data.slice();
    const words = new Int32Array(data.buffer, data.byteOffset, band.width * band.height);
    for (let y = from; y < to; y++) upRow(words, raw, this.width, y, y - from, this.rows + y - from > 0);
    this.rows += to - from;
    await this.inFlight;
    this.inFlight = new Promise((resolve, reject) => {
      this.deflater.write(raw, (error) => {
        if (error) return reject(error);
        this.spare = raw;
        resolve();
      });
    });
    // Failures surface at the next write or at finish().
    this.inFlight.catch(() => undefined);
    if (this.failure) throw this.failure;
  }

  /** Stops early, e.g. when drawing failed; the rows written so far are dropped. */
  abort(): void {
    this.deflater.destroy();
  }

  /** The whole PNG, once every row has been written. */
  async finish(): Promise<Uint8Array> {
    if (this.rows !== this.height) throw new RangeError(`${this.rows} of ${this.height} rows were written`);
    await this.inFlight;
    this.deflater.end();
    await this.ended;
    // One IDAT chunk per piece zlib handed over: the compressed sheet is not copied into one first.
    return assemble(this.width, this.height, 2, [], this.compressed);
  }
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
  compressed: Uint8Array | readonly Uint8Array[],
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
    ...(compressed instanceof Uint8Array ? [compressed] : compressed).map((piece) => makeChunk('IDAT', piece)),
    makeChunk('IEND', new Uint8Array(0)),
  ];
  return concatBytes(parts);
}
