import { gunzipSync, inflateSync } from 'node:zlib';
import { unreadable } from './image-read-error.js';

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Gunzips (also concatenated members), turning zlib's failures into a read error that names the data. */
export function gunzip(bytes: Uint8Array, what: string): Uint8Array {
  try {
    return gunzipSync(bytes);
  } catch (err) {
    unreadable(`${what}: gzip data is corrupt or truncated (${zlibReason(err)})`);
  }
}

/** Inflates zlib data (MetaImage `CompressedData`); gzip-wrapped data is accepted too. */
export function inflate(bytes: Uint8Array, what: string): Uint8Array {
  if (isGzip(bytes)) return gunzip(bytes, what);
  try {
    return inflateSync(bytes);
  } catch (err) {
    unreadable(`${what}: zlib data is corrupt or truncated (${zlibReason(err)})`);
  }
}

function zlibReason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
