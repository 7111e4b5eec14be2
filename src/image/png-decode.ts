import { createInflate } from 'node:zlib';
import type * as Pngjs from 'pngjs';
import { loadOnFirstUse } from './codec-loader.js';
import { CompareError } from './image-error.js';
import { listChunks, type PngChunk } from './png-chunks.js';
import { blit } from './pixels.js';
import { ALPHA, packRgb, paethRow, unfilterWords } from './png-unfilter.js';
import type { RgbaImage, Size } from './rgba.js';

/** Larger images are refused rather than risking an allocation the process cannot survive. */
const MAX_PIXELS = 1 << 28;

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

export function readHeader(bytes: Uint8Array, chunks: readonly PngChunk[], label: string): PngHeader {
  const ihdr = chunks[0]!;
  if (ihdr.length !== 13)
    throw new CompareError(
      'BAD_PNG',
      `${label} is not a valid PNG: its IHDR chunk has ${ihdr.length} bytes instead of 13`,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset + ihdr.dataOffset, 13);
  const header = {
    width: view.getUint32(0),
    height: view.getUint32(4),
    bitDepth: view.getUint8(8),
    colorType: view.getUint8(9),
    interlace: view.getUint8(12),
  };
  if (header.width === 0 || header.height === 0)
    throw new CompareError('BAD_PNG', `${label} is not a valid PNG: it is ${header.width}x${header.height}`);
  if (header.width * header.height > MAX_PIXELS) {
    throw new CompareError(
      'BAD_PNG',
      `${label} is ${header.width}x${header.height}, larger than the ${MAX_PIXELS} pixels wbplay compares`,
      'compare a smaller capture or a cropped region',
    );
  }
  return header;
}

/**
 * Decodes a PNG to RGBA. What workbenches write (8-bit RGB or RGBA, not interlaced, no
 * transparency key) takes a fast path: zlib inflates on the thread pool while the scanlines are
 * unfiltered straight into the output, two to three times faster than pngjs. Written by hand
 * because no maintained library exposes unfiltering on its own and pngjs's generic loop made
 * decoding the slowest part of a comparison. Every other
 * variant (grey, palette, 16-bit, interlaced, tRNS) goes through pngjs, which handles them all.
 */
export async function decodePng(bytes: Uint8Array, label = 'image'): Promise<RgbaImage> {
  const png = inspect(bytes, label);
  if (!png.fast) return decodeWithPngjs(bytes, label);
  const { width, height } = png.header;
  const image = { width, height, data: new Uint8Array(width * height * 4) };
  await decodeFast(bytes, png.chunks, png.header, { image, x: 0, y: 0 }, label);
  return image;
}

/** A place in a larger image for decoded pixels: its top-left corner is (x, y). */
export interface PixelTarget {
  image: RgbaImage;
  x: number;
  y: number;
}

/**
 * Decodes a PNG straight into a place of a larger image (a band of a contact sheet), so its
 * pixels are written once; returns its size. It must fit there. Where the decoding fails part
 * way, the pixels written so far stay.
 */
export async function decodePngInto(bytes: Uint8Array, target: PixelTarget, label = 'image'): Promise<Size> {
  const png = inspect(bytes, label);
  const { width, height } = png.header;
  const { image, x, y } = target;
  if (x < 0 || y < 0 || x + width > image.width || y + height > image.height)
    throw new RangeError(`${label} (${width}x${height}) does not fit at ${x},${y} of ${image.width}x${image.height}`);
  if (png.fast && image.data.byteOffset % 4 === 0) await decodeFast(bytes, png.chunks, png.header, target, label);
  else blit(image, png.fast ? await decodePng(bytes, label) : decodeWithPngjs(bytes, label), x, y);
  return { width, height };
}

function inspect(bytes: Uint8Array, label: string): { chunks: PngChunk[]; header: PngHeader; fast: boolean } {
  const chunks = listChunks(bytes, label);
  const header = readHeader(bytes, chunks, label);
  const fast =
    LITTLE_ENDIAN &&
    header.bitDepth === 8 &&
    (header.colorType === 2 || header.colorType === 6) &&
    header.interlace === 0 &&
    !chunks.some((c) => c.type === 'tRNS');
  return { chunks, header, fast };
}

/** The fast path packs RGB bytes into words lowest byte first, as they lie in memory here. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** pngjs, for the PNGs the fast path does not read. */
const loadPngjs = loadOnFirstUse<typeof Pngjs>('pngjs');

function decodeWithPngjs(bytes: Uint8Array, label: string): RgbaImage {
  try {
    const png = loadPngjs().PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    // pngjs may hand out a pooled buffer; a fresh copy keeps 32-bit pixel access aligned.
    const data = png.data.byteOffset % 4 === 0 ? png.data : new Uint8Array(png.data);
    return { width: png.width, height: png.height, data };
  } catch (error) {
    throw new CompareError(
      'BAD_PNG',
      `${label} is not a valid PNG: ${(error as Error).message}`,
      'check that the file is a complete PNG image',
    );
  }
}

function decodeFast(
  bytes: Uint8Array,
  chunks: readonly PngChunk[],
  header: PngHeader,
  target: PixelTarget,
  label: string,
): Promise<void> {
  const idat = chunks.filter((c) => c.type === 'IDAT');
  if (idat.length === 0)
    return Promise.reject(new CompareError('BAD_PNG', `${label} is not a valid PNG: it has no image data (IDAT)`));
  const sink = new ScanlineSink(header, target, label);
  const damaged = (what: string) =>
    new CompareError(
      'BAD_PNG',
      `${label} is not a valid PNG: ${what}`,
      'the file is damaged or truncated; capture or record it again',
    );
  return new Promise((resolve, reject) => {
    // Streamed so that rows are unfiltered on this thread while zlib inflates the next piece on
    // the thread pool; two images decoded together keep both cores busy.
    const inflater = createInflate({ chunkSize: 256 * 1024 });
    const pending: Buffer[] = [];
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      inflater.destroy();
      reject(
        error instanceof CompareError
          ? error
          : damaged(`its image data cannot be inflated (${(error as Error).message})`),
      );
    };
    const drain = () => {
      try {
        for (let piece = pending.shift(); piece && !failed; piece = pending.shift()) sink.write(piece);
      } catch (error) {
        fail(error);
      }
    };
    inflater.on('data', (piece: Buffer) => {
      // Deferred to a microtask: zlib queues its next inflate call right after handing this piece over.
      if (pending.push(piece) === 1) queueMicrotask(drain);
    });
    inflater.on('error', fail);
    inflater.on('end', () => {
      drain();
      if (failed) return;
      if (!sink.complete) fail(damaged(`its image data ends after ${sink.rows} of ${header.height} rows`));
      else resolve();
    });
    for (const c of idat) inflater.write(bytes.subarray(c.dataOffset, c.dataOffset + c.length));
    inflater.end();
  });
}

/**
 * Receives the inflated scanlines in pieces of any size and unfilters each row as soon as it is
 * complete, writing RGBA pixels to the target.
 */
class ScanlineSink {
  rows = 0;
  private readonly width: number;
  private readonly height: number;
  private readonly bpp: number;
  private readonly stride: number;
  /** The filtered row being filled, 4-byte aligned so that 4-byte pixels can be read as words. */
  private readonly line: Uint8Array;
  /** The filtered row as one word per pixel: the row itself for RGBA, packed from it for RGB. */
  private readonly words: Int32Array;
  private readonly out32: Int32Array;
  /** Where the first row starts in `out32`, and how far apart rows are there. */
  private readonly origin: number;
  private readonly pitch: number;
  /** OR-ed into every pixel: RGB rows have no alpha byte, so their pixels are made opaque. */
  private readonly opaque: number;
  private filter = -1;
  private filled = 0;

  constructor(
    header: PngHeader,
    target: PixelTarget,
    private readonly label: string,
  ) {
    this.width = header.width;
    this.height = header.height;
    this.bpp = header.colorType === 6 ? 4 : 3;
    this.stride = this.width * this.bpp;
    this.line = new Uint8Array((this.stride + 3) & ~3);
    this.words = this.bpp === 4 ? new Int32Array(this.line.buffer) : new Int32Array(this.width);
    this.opaque = this.bpp === 4 ? 0 : ALPHA;
    const { image } = target;
    this.out32 = new Int32Array(image.data.buffer, image.data.byteOffset, image.width * image.height);
    this.pitch = image.width;
    this.origin = target.y * image.width + target.x;
  }

  get complete(): boolean {
    return this.rows === this.height;
  }

  write(piece: Uint8Array): void {
    let i = 0;
    while (i < piece.length) {
      if (this.complete)
        throw new CompareError(
          'BAD_PNG',
          `${this.label} is not a valid PNG: its image data is longer than ${this.width}x${this.height} pixels need`,
          'the file is damaged; capture or record it again',
        );
      if (this.filter < 0) {
        this.filter = piece[i++]!;
        continue;
      }
      const n = Math.min(this.stride - this.filled, piece.length - i);
      this.line.set(piece.subarray(i, i + n), this.filled);
      this.filled += n;
      i += n;
      if (this.filled === this.stride) {
        this.row();
        this.filter = -1;
        this.filled = 0;
      }
    }
  }

  private row(): void {
    const { width, filter, rows: y } = this;
    if (filter > 4)
      throw new CompareError(
        'BAD_PNG',
        `${this.label} is not a valid PNG: row ${y} has the unknown filter type ${String(filter)}`,
        'the file is damaged; capture or record it again',
      );
    const r = this.origin + y * this.pitch;
    if (filter === 4 && y > 0) {
      paethRow(this.line, this.words, this.bpp, this.out32, r, r - this.pitch, width, this.opaque);
    } else {
      if (this.bpp === 3) packRgb(this.line, this.words, width);
      unfilterWords(filter, this.words, this.out32, r, y === 0 ? -1 : r - this.pitch, width, this.opaque);
    }
    this.rows++;
  }
}
