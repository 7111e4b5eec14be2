import { createInflate } from 'node:zlib';
import type * as Pngjs from 'pngjs';
import { loadOnFirstUse } from './codec-loader.js';
import { CompareError } from './image-error.js';
import { listChunks, type PngChunk } from './png-chunks.js';
import type { RgbaImage } from './rgba.js';

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
  const chunks = listChunks(bytes, label);
  const header = readHeader(bytes, chunks, label);
  const fast =
    header.bitDepth === 8 &&
    (header.colorType === 2 || header.colorType === 6) &&
    header.interlace === 0 &&
    !chunks.some((c) => c.type === 'tRNS');
  return fast ? decodeFast(bytes, chunks, header, label) : decodeWithPngjs(bytes, label);
}

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
  label: string,
): Promise<RgbaImage> {
  const idat = chunks.filter((c) => c.type === 'IDAT');
  if (idat.length === 0)
    return Promise.reject(new CompareError('BAD_PNG', `${label} is not a valid PNG: it has no image data (IDAT)`));
  const sink = new ScanlineSink(header, label);
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
      else resolve({ width: header.width, height: header.height, data: sink.out });
    });
    for (const c of idat) inflater.write(bytes.subarray(c.dataOffset, c.dataOffset + c.length));
    inflater.end();
  });
}

/**
 * Receives the inflated scanlines in pieces of any size and unfilters each row as soon as it is
 * complete, writing RGBA pixels to `out`.
 */
class ScanlineSink {
  readonly out: Uint8Array;
  rows = 0;
  private readonly width: number;
  private readonly height: number;
  private readonly bpp: number;
  private readonly stride: number;
  /** The filtered row being filled, 4-byte aligned so that 4-byte pixels can be read as words. */
  private readonly line: Uint8Array;
  private readonly line32: Uint32Array;
  private readonly out32: Uint32Array;
  private filter = -1;
  private filled = 0;
  /** RGB rows are unfiltered here (current and previous), then widened into `out`. */
  private cur: Uint8Array;
  private prev: Uint8Array;

  constructor(
    header: PngHeader,
    private readonly label: string,
  ) {
    this.width = header.width;
    this.height = header.height;
    this.bpp = header.colorType === 6 ? 4 : 3;
    this.stride = this.width * this.bpp;
    const padded = (this.stride + 3) & ~3;
    this.line = new Uint8Array(padded);
    this.line32 = new Uint32Array(this.line.buffer);
    this.cur = new Uint8Array(padded);
    this.prev = new Uint8Array(padded);
    this.out = new Uint8Array(this.width * this.height * 4);
    this.out32 = new Uint32Array(this.out.buffer);
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
    const { width, bpp, filter, rows: y } = this;
    if (bpp === 4) {
      const r = y * width;
      const p = y === 0 ? -1 : r - width;
      if (!unfilterWords(filter, this.line32, this.out32, r, p, width)) {
        const prev = y === 0 ? undefined : this.out.subarray(p * 4, r * 4);
        unfilterBytes(filter, this.line, this.out.subarray(r * 4, r * 4 + this.stride), prev, 4, this.label, y);
      }
    } else {
      const { cur, out } = this;
      unfilterBytes(filter, this.line, cur, y === 0 ? undefined : this.prev, 3, this.label, y);
      for (let x = 0, i = 0, o = y * width * 4; x < width; x++, i += 3, o += 4) {
        out[o] = cur[i]!;
        out[o + 1] = cur[i + 1]!;
        out[o + 2] = cur[i + 2]!;
        out[o + 3] = 255;
      }
      this.cur = this.prev;
      this.prev = cur;
    }
    this.rows++;
  }
}

/*
 * Byte-wise addition and floor average of four bytes packed in a 32-bit word, without carries
 * between the bytes (SWAR). Sub, Up and Avg treat every byte of a pixel alike, so with 4-byte
 * pixels one word operation does a whole pixel.
 */
const LOW7 = 0x7f7f7f7f;
const HIGH = 0x80808080 | 0;
function addBytes(a: number, b: number): number {
  return (((a & LOW7) + (b & LOW7)) | 0) ^ ((a ^ b) & HIGH);
}
function avgBytes(a: number, b: number): number {
  return ((a & b) + (((a ^ b) >>> 1) & LOW7)) | 0;
}

/** Sub, Up and Avg on 4-byte pixels, one word per pixel; false for the filters left to the byte loop. */
function unfilterWords(
  filter: number,
  line: Uint32Array,
  out: Uint32Array,
  r: number,
  p: number,
  width: number,
): boolean {
  switch (filter) {
    case 0:
      for (let x = 0; x < width; x++) out[r + x] = line[x]!;
      return true;
    case 1: {
      let left = 0;
      for (let x = 0; x < width; x++) out[r + x] = left = addBytes(line[x]!, left);
      return true;
    }
    case 2:
      if (p < 0) for (let x = 0; x < width; x++) out[r + x] = line[x]!;
      else for (let x = 0; x < width; x++) out[r + x] = addBytes(line[x]!, out[p + x]!);
      return true;
    case 3: {
      let left = 0;
      if (p < 0) for (let x = 0; x < width; x++) out[r + x] = left = addBytes(line[x]!, (left >>> 1) & LOW7);
      else for (let x = 0; x < width; x++) out[r + x] = left = addBytes(line[x]!, avgBytes(left, out[p + x]!));
      return true;
    }
    default:
      return false;
  }
}

/** Every filter, byte by byte; `prev` is the unfiltered row above, absent on the first row. */
function unfilterBytes(
  filter: number,
  line: Uint8Array,
  dst: Uint8Array,
  prev: Uint8Array | undefined,
  bpp: number,
  label: string,
  y: number,
): boolean {
  const stride = dst.length < line.length ? dst.length : line.length;
  switch (filter) {
    case 0:
      for (let i = 0; i < stride; i++) dst[i] = line[i]!;
      break;
    case 1:
      for (let i = 0; i < bpp; i++) dst[i] = line[i]!;
      for (let i = bpp; i < stride; i++) dst[i] = line[i]! + dst[i - bpp]!;
      break;
    case 2:
      if (prev) for (let i = 0; i < stride; i++) dst[i] = line[i]! + prev[i]!;
      else for (let i = 0; i < stride; i++) dst[i] = line[i]!;
      break;
    case 3:
      if (prev) {
        for (let i = 0; i < bpp; i++) dst[i] = line[i]! + (prev[i]! >> 1);
        for (let i = bpp; i < stride; i++) dst[i] = line[i]! + ((dst[i - bpp]! + prev[i]!) >> 1);
      } else {
        for (let i = 0; i < bpp; i++) dst[i] = line[i]!;
        for (let i = bpp; i < stride; i++) dst[i] = line[i]! + (dst[i - bpp]! >> 1);
      }
      break;
    case 4:
      if (prev) {
        for (let i = 0; i < bpp; i++) dst[i] = line[i]! + prev[i]!;
        for (let i = bpp; i < stride; i++) {
          const a = dst[i - bpp]!;
          const b = prev[i]!;
          const c = prev[i - bpp]!;
          const pa = Math.abs(b - c);
          const pb = Math.abs(a - c);
          const pc = Math.abs(a + b - c - c);
          dst[i] = line[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
        }
      } else {
        // With no row above, Paeth always picks the left neighbour: the Sub filter.
        for (let i = 0; i < bpp; i++) dst[i] = line[i]!;
        for (let i = bpp; i < stride; i++) dst[i] = line[i]! + dst[i - bpp]!;
      }
      break;
    default:
      throw new CompareError(
        'BAD_PNG',
        `${label} is not a valid PNG: row ${y} has the unknown filter type ${String(filter)}`,
        'the file is damaged; capture or record it again',
      );
  }
  return true;
}
