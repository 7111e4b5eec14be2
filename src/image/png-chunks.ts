import * as zlib from 'node:zlib';
import { CompareError } from './image-error.js';

/** The eight bytes every PNG file starts with. */
export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

export interface PngChunk {
  /** Four ASCII letters, e.g. `IHDR`. */
  type: string;
  /** Offset of the chunk's length field; the chunk spans `offset .. offset + 12 + length`. */
  offset: number;
  /** Offset of the chunk's data. */
  dataOffset: number;
  length: number;
}

export function hasPngSignature(bytes: Uint8Array): boolean {
  if (bytes.length < PNG_SIGNATURE.length) return false;
  for (let i = 0; i < PNG_SIGNATURE.length; i++) if (bytes[i] !== PNG_SIGNATURE[i]) return false;
  return true;
}

function badPng(label: string, what: string): CompareError {
  return new CompareError(
    'BAD_PNG',
    `${label} is not a valid PNG: ${what}`,
    'check that the file is a complete PNG image (re-capture it, or delete a damaged golden and record it again)',
  );
}

/**
 * The chunks of a PNG up to and including IEND, checking the layout (signature, lengths, IHDR
 * first, IEND present). CRCs are not checked here: the image data is guarded by zlib's own
 * checksum when it is inflated, and checking every CRC would cost a pass over the whole file.
 */
export function listChunks(bytes: Uint8Array, label = 'image'): PngChunk[] {
  if (!hasPngSignature(bytes)) throw badPng(label, 'the PNG signature is missing');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  let offset = PNG_SIGNATURE.length;
  for (;;) {
    if (offset + 12 > bytes.length)
      throw badPng(label, `the file ends inside a chunk header at byte ${offset} (truncated?)`);
    const length = view.getUint32(offset);
    const type = String.fromCharCode(bytes[offset + 4]!, bytes[offset + 5]!, bytes[offset + 6]!, bytes[offset + 7]!);
    if (!/^[A-Za-z]{4}$/.test(type)) throw badPng(label, `a chunk at byte ${offset} has an invalid type`);
    if (offset + 12 + length > bytes.length)
      throw badPng(label, `the ${type} chunk at byte ${offset} runs past the end of the file (truncated?)`);
    if (chunks.length === 0 && type !== 'IHDR') throw badPng(label, 'the first chunk is not IHDR');
    chunks.push({ type, offset, dataOffset: offset + 8, length });
    offset += 12 + length;
    if (type === 'IEND') return chunks;
  }
}

/*
 * CRC-32 as PNG defines it (ISO 3309, polynomial 0xEDB88320): zlib's where Node has it (from
 * 20.15 and 22.2), twenty times faster on a contact sheet's megabytes of image data; elsewhere a
 * table, since the project supports every Node 20.
 */
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** The CRC of `bytes` continuing from `crc`, the CRC of the bytes before them. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  if (nativeCrc32) return nativeCrc32(bytes, crc);
  return tableCrc32(bytes, crc);
}

export function tableCrc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** A complete chunk (length, type, data, CRC over type and data). */
export function makeChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** Checks a chunk's stored CRC; used where a damaged chunk must not be trusted (text chunks). */
export function chunkCrcMatches(bytes: Uint8Array, chunk: PngChunk): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stored = view.getUint32(chunk.dataOffset + chunk.length);
  return crc32(bytes.subarray(chunk.offset + 4, chunk.dataOffset + chunk.length)) === stored;
}

/** The chunks (or any byte runs) of a PNG joined into one array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
