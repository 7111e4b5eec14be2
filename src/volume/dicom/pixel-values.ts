import dicomParser from 'dicom-parser';
import type { ScalarType } from '../scalar-types.js';
import { EXPLICIT_BE } from './data-set.js';
import { decodeFrame, isNative } from './codecs.js';
import { fail } from './errors.js';
import { TAG, type SliceHeader } from './slice-header.js';
import { applyPalette, isPalette, readPalette, type Palette } from './palette.js';
import type { RgbSamples } from '../volume.js';

/**
 * The type GDCM gives rescaled values (`Rescaler::ComputeInterceptSlopePixelType`): double for
 * a non-integer slope or intercept, else the stored type when nothing is rescaled, else the
 * smallest integer type holding slope·[min, max] + intercept over the range BitsStored allows.
 */
export function rescaledType(h: SliceHeader): ScalarType {
  // The expanded RGB keeps the stored format (MITK's RGBPixel<uchar> or <ushort>); palette images
  // carry no rescale, and none is applied to them here.
  if (isPalette(h)) return h.bitsAllocated <= 8 ? 'uint8' : 'uint16';
  // Colour likewise: ITK's GDCMImageIO gives three samples of 16 bits unsigned short components.
  if (h.samples === 3) return rgbBits(h) === 16 ? 'uint16' : 'uint8';
  if (!Number.isInteger(h.slope) || !Number.isInteger(h.intercept)) return 'float64';
  if (h.bitsAllocated === 1) return 'uint8';
  if (h.slope === 1 && h.intercept === 0) return storedType(h);
  const bits = Math.min(h.bitsStored, 32);
  const min = h.signed ? -(2 ** (bits - 1)) : 0;
  const max = h.signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  const a = h.slope * min + h.intercept;
  const b = h.slope * max + h.intercept;
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  if (lo >= 0) return hi <= 0xff ? 'uint8' : hi <= 0xffff ? 'uint16' : hi <= 0xffffffff ? 'uint32' : 'float64';
  if (lo >= -128 && hi <= 127) return 'int8';
  if (lo >= -32768 && hi <= 32767) return 'int16';
  return lo >= -(2 ** 31) && hi < 2 ** 31 ? 'int32' : 'float64';
}

/**
 * The bits of each held RGB sample: 16 for a 16-bit palette index or 16-bit colour samples
 * (MITK's `RGBPixel<unsigned short>`), else 8.
 */
export function rgbBits(h: SliceHeader): 8 | 16 {
  return (isPalette(h) || h.samples === 3) && h.bitsAllocated === 16 ? 16 : 8;
}

function storedType(h: SliceHeader): ScalarType {
  const size = h.bitsAllocated <= 8 ? 8 : h.bitsAllocated <= 16 ? 16 : 32;
  return `${h.signed ? 'int' : 'uint'}${size}` as ScalarType;
}

/** Voxels one file contributes: rows × columns × frames. */
export function fileVoxels(h: SliceHeader): number {
  return h.rows * h.columns * h.frames;
}

/**
 * Decodes every frame of a file into `out` from `offset` on, as values after rescaling:
 * MONOCHROME1 is first inverted to MONOCHROME2 (ITK's GDCMImageIO does so before rescaling),
 * then slope and intercept of this file are applied. Colour samples become their luminance
 * here; `rgb` (when given) receives the interleaved RGB samples, of the bits `rgbBits` gives.
 */
export async function decodeInto(h: SliceHeader, out: Float32Array, offset: number, rgb?: RgbSamples): Promise<void> {
  // Uncompressed YBR_FULL_422 stores two luma samples per chroma pair: 2 bytes a pixel.
  const subsampled = h.samples === 3 && h.photometric === 'YBR_FULL_422' && isNative(h);
  const frameBytes = (h.rows * h.columns * (subsampled ? 2 : h.samples) * h.bitsAllocated) / 8;
  const element = h.ds.elements[TAG.pixelData]!;
  const bytes = h.ds.byteArray as Uint8Array;
  const perFrame = h.rows * h.columns;
  const palette = isPalette(h) ? readPalette(h) : undefined;
  if (isNative(h)) {
    if (h.bitsAllocated === 1) {
      unpackBits(bytes, element.dataOffset, element.length, perFrame * h.frames, out, offset, h);
      return;
    }
    const needed = frameBytes * h.frames;
    if (element.dataOffset + needed > bytes.length || element.length < needed)
      fail(
        'TRUNCATED',
        h.file,
        `is truncated: its pixel data has ${Math.max(0, Math.min(element.length, bytes.length - element.dataOffset))} bytes, ${needed} expected (${h.columns}x${h.rows}x${h.frames}, ${h.bitsAllocated} bits, ${h.samples} samples)`,
      );
    decodeNativeFrames(
      h,
      bytes.subarray(element.dataOffset, element.dataOffset + needed),
      h.frames,
      out,
      offset,
      rgb,
      palette,
    );
    return;
  }
  if (!element.encapsulatedPixelData || element.fragments === undefined)
    fail('CORRUPT', h.file, `its transfer syntax ${h.transferSyntax} needs encapsulated pixel data, and it has none`);
  for (let f = 0; f < h.frames; f++) {
    const encoded = encapsulatedFrame(h, f);
    if (f === 0) adoptCodestreamPrecision(h, encoded);
    const decoded = await decodeFrame(h, encoded);
    const plane =
      h.samples === 3 && h.planar === 1 && isRle(h) ? interleave(decoded, perFrame, h.bitsAllocated) : decoded;
    convert(h, plane, true, out, offset + f * perFrame, rgb, (offset + f * perFrame) * 3, true, palette);
  }
}

/** Bytes one uncompressed frame takes (two a pixel for YBR_FULL_422's shared chroma). */
export function nativeFrameBytes(h: SliceHeader): number {
  const subsampled = h.samples === 3 && h.photometric === 'YBR_FULL_422';
  return (h.rows * h.columns * (subsampled ? 2 : h.samples) * h.bitsAllocated) / 8;
}

/**
 * Uncompressed frames, `count` of them back to back in `src`, into `out` from `offset` on:
 * each frame is converted from a view on the bytes as they were read, never copied first.
 */
export function decodeNativeFrames(
  h: SliceHeader,
  src: Uint8Array,
  count: number,
  out: Float32Array,
  offset: number,
  rgb?: RgbSamples,
  palette: Palette | undefined = isPalette(h) ? readPalette(h) : undefined,
): void {
  const frameBytes = nativeFrameBytes(h);
  const perFrame = h.rows * h.columns;
  const littleEndian = h.transferSyntax !== EXPLICIT_BE;
  for (let f = 0; f < count; f++) {
    const frame = src.subarray(f * frameBytes, (f + 1) * frameBytes);
    convert(h, frame, littleEndian, out, offset + f * perFrame, rgb, (offset + f * perFrame) * 3, false, palette);
  }
}

/**
 * GDCM takes BitsStored of JPEG 2000 data from the codestream's SIZ marker, not the header
 * (a CT with BitsStored 14 whose codestream says 16 bits is read as 16 bits, so rescaled by
 * −1024 it becomes int32 in MITK); the header is updated the same way.
 */
function adoptCodestreamPrecision(h: SliceHeader, encoded: Uint8Array): void {
  if (!h.transferSyntax.startsWith('1.2.840.10008.1.2.4.9') || encoded.length < 43) return;
  if (encoded[0] !== 0xff || encoded[1] !== 0x4f || encoded[2] !== 0xff || encoded[3] !== 0x51) return;
  const ssiz = encoded[42]!;
  h.bitsStored = (ssiz & 0x7f) + 1;
}

function isRle(h: SliceHeader): boolean {
  return h.transferSyntax === '1.2.840.10008.1.2.5';
}

function encapsulatedFrame(h: SliceHeader, frame: number): Uint8Array {
  const element = h.ds.elements[TAG.pixelData]!;
  const fragments = element.fragments!;
  try {
    if (h.frames === 1) return dicomParser.readEncapsulatedPixelDataFromFragments(h.ds, element, 0, fragments.length);
    if (element.basicOffsetTable !== undefined && element.basicOffsetTable.length === h.frames)
      return dicomParser.readEncapsulatedImageFrame(h.ds, element, frame);
    if (fragments.length === h.frames)
      return dicomParser.readEncapsulatedPixelDataFromFragments(h.ds, element, frame, 1);
    const table = dicomParser.createJPEGBasicOffsetTable(h.ds, element);
    return dicomParser.readEncapsulatedImageFrame(h.ds, element, frame, table);
  } catch (err) {
    fail('TRUNCATED', h.file, `frame ${frame + 1} of its pixel data cannot be located: ${String(err)}`);
  }
}

/** Planar RGB (RRR…GGG…BBB) to interleaved (RGBRGB…). */
function interleave(planes: Uint8Array, pixels: number, bitsAllocated: number): Uint8Array {
  const size = bitsAllocated / 8;
  const out = new Uint8Array(pixels * 3 * size);
  for (let p = 0; p < pixels; p++)
    for (let c = 0; c < 3; c++)
      for (let b = 0; b < size; b++) out[(p * 3 + c) * size + b] = planes[(c * pixels + p) * size + b]!;
  return out;
}

/** Samples of one frame to rescaled values (and RGB samples for colour). */
function convert(
  h: SliceHeader,
  src: Uint8Array,
  littleEndian: boolean,
  out: Float32Array,
  at: number,
  rgb: RgbSamples | undefined,
  rgbAt: number,
  decoded = false,
  palette?: Palette,
): void {
  const n = h.rows * h.columns;
  const samples = view(h, src, littleEndian);
  if (palette) {
    applyPalette(palette, samples, n, out, at, rgb, rgbAt);
    return;
  }
  if (h.samples === 3) {
    colour(h, samples, n, out, at, rgb, rgbAt, decoded);
    return;
  }
  const { slope, intercept } = h;
  if (h.photometric === 'MONOCHROME1') {
    const top = h.signed ? -1 : 2 ** h.bitsStored - 1;
    const sign = h.signed ? -1 : 1;
    for (let i = 0; i < n; i++)
      out[at + i] = (h.signed ? sign * samples[i]! + top : top - samples[i]!) * slope + intercept;
    return;
  }
  if (slope === 1 && intercept === 0) {
    out.set(samples.length === n ? samples : samples.subarray(0, n), at);
    return;
  }
  for (let i = 0; i < n; i++) out[at + i] = samples[i]! * slope + intercept;
}

type Samples = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array;

/** A typed view on little-endian samples; a copy only when unaligned or big endian. */
function view(h: SliceHeader, src: Uint8Array, littleEndian: boolean): Samples {
  const size = h.bitsAllocated / 8;
  if (size === 1) return h.signed ? new Int8Array(src.buffer, src.byteOffset, src.length) : src;
  let bytes = src;
  if (!littleEndian || src.byteOffset % size !== 0) {
    bytes = new Uint8Array(src);
    if (!littleEndian) swap(bytes, size);
  }
  const count = Math.floor(bytes.length / size);
  if (size === 2)
    return h.signed
      ? new Int16Array(bytes.buffer, bytes.byteOffset, count)
      : new Uint16Array(bytes.buffer, bytes.byteOffset, count);
  if (size === 4)
    return h.signed
      ? new Int32Array(bytes.buffer, bytes.byteOffset, count)
      : new Uint32Array(bytes.buffer, bytes.byteOffset, count);
  fail('UNSUPPORTED_PIXEL_DATA', h.file, `has ${h.bitsAllocated} bits allocated per sample, which is not read`);
}

function swap(bytes: Uint8Array, size: number): void {
  for (let i = 0; i + size <= bytes.length; i += size)
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = bytes[a]!;
      bytes[a] = bytes[b]!;
      bytes[b] = t;
    }
}

/**
 * Colour: YBR_FULL(_422) uncompressed is converted to RGB as GDCM does for ITK; the grey
 * frame gets the luminance so that statistics and grey consumers see something sensible.
 */
function colour(
  h: SliceHeader,
  samples: Samples,
  n: number,
  out: Float32Array,
  at: number,
  rgb: RgbSamples | undefined,
  rgbAt: number,
  decoded: boolean,
): void {
  const planar = h.planar === 1 && !decoded;
  const ybr = !decoded && h.photometric.startsWith('YBR_FULL');
  // 16-bit colour is held unscaled, as GDCM hands it to ITK; anything else as bytes.
  const top = rgb instanceof Uint16Array ? 0xffff : 0xff;
  const subsampled = !decoded && h.photometric === 'YBR_FULL_422';
  for (let i = 0; i < n; i++) {
    // 4:2:2 rows are Y0 Y1 Cb Cr for each pair of pixels.
    const pair = (i >> 1) * 4;
    let r = subsampled ? samples[pair + (i & 1)]! : planar ? samples[i]! : samples[i * 3]!;
    let g = subsampled ? samples[pair + 2]! : planar ? samples[n + i]! : samples[i * 3 + 1]!;
    let b = subsampled ? samples[pair + 3]! : planar ? samples[2 * n + i]! : samples[i * 3 + 2]!;
    if (ybr) {
      const y = r;
      const cb = g - 128;
      const cr = b - 128;
      r = y + 1.402 * cr;
      g = y - 0.344136 * cb - 0.714136 * cr;
      b = y + 1.772 * cb;
    }
    r = clamp(r, top);
    g = clamp(g, top);
    b = clamp(b, top);
    out[at + i] = 0.299 * r + 0.587 * g + 0.114 * b;
    if (rgb !== undefined) {
      rgb[rgbAt + i * 3] = r;
      rgb[rgbAt + i * 3 + 1] = g;
      rgb[rgbAt + i * 3 + 2] = b;
    }
  }
}

const clamp = (v: number, top: number): number => (v < 0 ? 0 : v > top ? top : Math.round(v));

/** 1-bit data (SEG): bits packed little-end first across frames, as 0 and 1. */
function unpackBits(
  bytes: Uint8Array,
  start: number,
  length: number,
  count: number,
  out: Float32Array,
  at: number,
  h: SliceHeader,
): void {
  if (Math.ceil(count / 8) > Math.min(length, bytes.length - start))
    fail(
      'TRUNCATED',
      h.file,
      `is truncated: its 1-bit pixel data has ${length} bytes, ${Math.ceil(count / 8)} expected`,
    );
  for (let i = 0; i < count; i++) out[at + i] = (bytes[start + (i >> 3)]! >> (i & 7)) & 1;
}
