import { constants, inflate } from 'node:zlib';
import { CompareError } from '../image/image-error.js';
import { listChunks, type PngChunk } from '../image/png-chunks.js';
import { MAX_IMAGE_BYTES } from './limits.js';

/** Samples per pixel by PNG colour type (grey, -, RGB, palette, grey+alpha, -, RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/** Adam7 passes: first column, first row, column step, row step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

interface Header {
  width: number;
  height: number;
  /** Bits per pixel. */
  bits: number;
  interlaced: boolean;
}

/**
 * Why `bytes` is not a PNG that decodes, or null when it is one. Checked without decoding the
 * pixels: the chunk layout (signature, IHDR first, lengths, IDAT, IEND), a header that names a
 * valid image no larger than a capture can be, and image data that inflates to exactly the
 * scanlines the header announces, each starting with a known filter type. The inflated data is
 * counted, never kept, and inflation stops at the first byte too many, so a damaged or hostile
 * image costs no more than a valid one of its announced size.
 */
export async function pngProblem(bytes: Uint8Array): Promise<string | null> {
  let chunks: PngChunk[];
  try {
    chunks = listChunks(bytes, 'the image');
  } catch (err) {
    if (err instanceof CompareError) return err.message;
    throw err;
  }
  const header = readHeader(bytes, chunks[0]!);
  if (typeof header === 'string') return `the image is not a valid PNG: ${header}`;
  const idat = chunks.filter((c) => c.type === 'IDAT');
  if (idat.length === 0) return 'the image is not a valid PNG: it has no image data (IDAT)';
  const problem = await checkScanlines(bytes, idat, header);
  return problem === null ? null : `the image does not decode: ${problem}`;
}

/** Why `bytes` is not a complete JPEG (start and end markers), or null. Its pixels are not decoded. */
export function jpegProblem(bytes: Uint8Array): string | null {
  if (!(bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff))
    return 'the image is not a JPEG: its start-of-image marker is missing';
  if (!(bytes.at(-2) === 0xff && bytes.at(-1) === 0xd9))
    return 'the JPEG is incomplete: its end-of-image marker is missing (truncated?)';
  return null;
}

function readHeader(bytes: Uint8Array, ihdr: PngChunk): Header | string {
  if (ihdr.length !== 13) return `its IHDR chunk has ${ihdr.length} bytes instead of 13`;
  const view = new DataView(bytes.buffer, bytes.byteOffset + ihdr.dataOffset, 13);
  const width = view.getUint32(0);
  const height = view.getUint32(4);
  const depth = view.getUint8(8);
  const colorType = view.getUint8(9);
  const interlace = view.getUint8(12);
  if (width === 0 || height === 0) return `it is ${width}x${height}`;
  if (!DEPTHS[colorType]?.includes(depth)) return `colour type ${colorType} with bit depth ${depth} does not exist`;
  if (interlace > 1) return `interlace method ${interlace} does not exist`;
  const bits = CHANNELS[colorType]! * depth;
  if ((width * height * bits) / 8 > MAX_IMAGE_BYTES)
    return `it announces ${width}x${height} pixels, more than any capture holds`;
  return { width, height, bits, interlaced: interlace === 1 };
}

/** Inflated bytes of `rows` scanlines `width` pixels wide: a filter byte plus the packed samples each. */
const scanlineBytes = (width: number, bits: number): number => 1 + Math.ceil((width * bits) / 8);

function expectedSize(h: Header): number {
  if (!h.interlaced) return h.height * scanlineBytes(h.width, h.bits);
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = Math.ceil((h.width - x0) / dx);
    const rows = Math.ceil((h.height - y0) / dy);
    if (w > 0 && rows > 0) total += rows * scanlineBytes(w, h.bits);
  }
  return total;
}

function checkScanlines(bytes: Uint8Array, idat: readonly PngChunk[], h: Header): Promise<string | null> {
  const expected = expectedSize(h);
  // Filter bytes are checked where rows are regular; interlaced passes only have their total checked.
  const stride = h.interlaced ? 0 : scanlineBytes(h.width, h.bits);
  const data =
    idat.length === 1
      ? bytes.subarray(idat[0]!.dataOffset, idat[0]!.dataOffset + idat[0]!.length)
      : Buffer.concat(idat.map((c) => bytes.subarray(c.dataOffset, c.dataOffset + c.length)));
  return new Promise((resolve) => {
    // One call on the thread pool (the main thread only walks the row starts after). A sync
    // flush at the end gives what a truncated stream holds instead of an error, and the output
    // is capped one byte past what the header announces, so a hostile image costs no more.
    // The output comes in one chunk of that size: in 16 KiB chunks (the default) a 512² capture
    // took 48 trips between the thread pool and the main thread, 48 buffers and a copy into one
    // more; in one chunk it takes a fifth of the CPU time and a sixth of the wall time.
    const most = expected + 1;
    const options = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: most, chunkSize: Math.max(64, most) };
    inflate(data, options, (err, out) => {
      if (err) {
        const tooLong = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        return resolve(
          tooLong
            ? `its image data is longer than ${h.width}x${h.height} pixels need`
            : `its image data cannot be inflated (${err.message})`,
        );
      }
      if (out.length > expected) return resolve(`its image data is longer than ${h.width}x${h.height} pixels need`);
      for (let at = 0; stride > 0 && at < out.length; at += stride) {
        const filter = out[at]!;
        if (filter > 4) return resolve(`row ${at / stride} has the unknown filter type ${filter}`);
      }
      resolve(
        out.length === expected
          ? null
          : `its image data ends after ${out.length} of the ${expected} bytes ${h.width}x${h.height} pixels need (truncated?)`,
      );
    });
  });
}
