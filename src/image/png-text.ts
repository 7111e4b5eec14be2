import { inflateSync } from 'node:zlib';
import { CompareError } from './image-error.js';
import { chunkCrcMatches, listChunks, makeChunk, concatBytes } from './png-chunks.js';

const TEXT_TYPES = new Set(['tEXt', 'iTXt', 'zTXt']);
const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/** PNG keywords: 1-79 printable Latin-1 characters, no leading, trailing or double spaces. */
function checkKeyword(key: string): void {
  if (key.length < 1 || key.length > 79 || /[^\x20-\x7e\xa1-\xff]/.test(key) || /^ | $| {2}/.test(key)) {
    throw new CompareError(
      'BAD_OPTIONS',
      `"${key}" cannot be a PNG text keyword`,
      'use 1 to 79 printable Latin-1 characters without leading, trailing or double spaces',
    );
  }
}

function latin1Bytes(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

/** tEXt when the value is plain Latin-1, iTXt (UTF-8) otherwise, so any path or name survives. */
function textChunk(key: string, value: string): Uint8Array {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x01-\xff]/.test(value)) {
    const data = new Uint8Array(key.length + 1 + value.length);
    data.set(latin1Bytes(key));
    data.set(latin1Bytes(value), key.length + 1);
    return makeChunk('tEXt', data);
  }
  const text = utf8Encoder.encode(value);
  // keyword, NUL, compression flag 0, method 0, empty language tag + NUL, empty translated keyword + NUL, text
  const data = new Uint8Array(key.length + 5 + text.length);
  data.set(latin1Bytes(key));
  data.set(text, key.length + 5);
  return makeChunk('iTXt', data);
}

function keyOf(bytes: Uint8Array, start: number, end: number): { key: string; rest: number } | undefined {
  const nul = bytes.indexOf(0, start);
  if (nul < 0 || nul >= end) return undefined;
  return { key: latin1.decode(bytes.subarray(start, nul)), rest: nul + 1 };
}

/**
 * Returns new PNG bytes with the entries as text chunks placed before the first IDAT; the image
 * data is copied byte for byte, never re-encoded. Existing text chunks with the same keys are
 * dropped so that annotating twice leaves one value per key.
 */
export function addPngText(png: Uint8Array, entries: Record<string, string>, label = 'image'): Uint8Array {
  const keys = Object.keys(entries);
  keys.forEach(checkKeyword);
  const chunks = listChunks(png, label);
  const firstIdat = chunks.find((c) => c.type === 'IDAT');
  if (!firstIdat) throw new CompareError('BAD_PNG', `${label} is not a valid PNG: it has no image data (IDAT)`);
  const added = keys.map((k) => textChunk(k, entries[k]!));
  const replaced = new Set(keys);
  const parts: Uint8Array[] = [png.subarray(0, chunks[0]!.offset)];
  for (const chunk of chunks) {
    if (chunk === firstIdat) parts.push(...added);
    if (TEXT_TYPES.has(chunk.type)) {
      const found = keyOf(png, chunk.dataOffset, chunk.dataOffset + chunk.length);
      if (found && replaced.has(found.key)) continue;
    }
    parts.push(png.subarray(chunk.offset, chunk.dataOffset + chunk.length + 4));
  }
  return concatBytes(parts);
}

/** The text entries of a PNG (tEXt, zTXt, iTXt); chunks whose CRC does not match are skipped. */
export function readPngText(png: Uint8Array, label = 'image'): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const chunk of listChunks(png, label)) {
    if (!TEXT_TYPES.has(chunk.type) || !chunkCrcMatches(png, chunk)) continue;
    const end = chunk.dataOffset + chunk.length;
    const found = keyOf(png, chunk.dataOffset, end);
    if (!found) continue;
    try {
      if (chunk.type === 'tEXt') {
        entries[found.key] = latin1.decode(png.subarray(found.rest, end));
      } else if (chunk.type === 'zTXt') {
        entries[found.key] = latin1.decode(inflateSync(png.subarray(found.rest + 1, end)));
      } else {
        const compressed = png[found.rest] === 1;
        const language = keyOf(png, found.rest + 2, end);
        const translated = language && keyOf(png, language.rest, end);
        if (!translated) continue;
        const text = png.subarray(translated.rest, end);
        entries[found.key] = utf8.decode(compressed ? inflateSync(text) : text);
      }
    } catch {
      // A damaged compressed text is left out; the image itself is still usable.
    }
  }
  return entries;
}
