import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import type { DataSet } from 'dicom-parser';
import { DicomReadError, fail } from './errors.js';
import { FIRST_READ, nextRead, parseHeader, type HeaderParse } from './header.js';

export { DEFLATED, EXPLICIT_BE, EXPLICIT_LE, IMPLICIT_LE, looksLikeDicom } from './header.js';

/** A parsed data set and the transfer syntax its pixel data is encoded in. */
export interface ParsedFile {
  file: string;
  ds: DataSet;
  transferSyntax: string;
  /** Whether parsing stopped at the pixel data (a header read). */
  headerOnly: boolean;
  /** Where `ds.byteArray` starts in the file, when a header read holds the file's own bytes (not inflated ones). */
  fileOffset?: number;
}

/** Parses a whole file (pixel data located, not copied). */
export function parseBytes(bytes: Uint8Array, file: string, untilPixels = false): ParsedFile {
  return parsed(parseHeader(bytes, true, untilPixels), file, bytes.length, untilPixels);
}

function parsed(result: HeaderParse, file: string, size: number, headerOnly: boolean): ParsedFile {
  if (result === 'not-dicom' || result === 'more' || result === 'all')
    fail('NOT_DICOM', file, 'is not a DICOM file (no DICM preamble and no data set at its start)');
  if ('error' in result) throw parseError(result.error, file, size);
  return { file, ...result, headerOnly };
}

/** dicom-parser throws strings (and sometimes `{exception, dataSet}` objects); say what they mean. */
function parseError(err: unknown, file: string, size: number): DicomReadError {
  const text =
    typeof err === 'string'
      ? err
      : err instanceof Error
        ? err.message
        : typeof err === 'object' && err !== null && 'exception' in err
          ? String((err as { exception: unknown }).exception)
          : String(err);
  if (/buffer overrun|attempt to read past end|position|beyond|out of range|outside the bounds/i.test(text))
    return new DicomReadError(
      'TRUNCATED',
      file,
      `is truncated (${size} bytes): ${text.replace(/^dicomParser[.:]\w*:\s*/, '')}`,
    );
  return new DicomReadError(
    'CORRUPT',
    file,
    `cannot be parsed as DICOM: ${text.replace(/^dicomParser[.:]\w*:\s*/, '')}`,
  );
}

/** Reads and parses a whole file. */
export async function readDataSet(file: string): Promise<ParsedFile> {
  return parseBytes(await readAll(file), file);
}

/**
 * Reads a file's header only, by header.ts's rule: the first bytes, then larger reads until
 * the pixel data's tag is in them (or the file ends).
 */
export async function readHeader(file: string): Promise<ParsedFile> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const size = (await handle.stat()).size;
    let length = Math.min(size, FIRST_READ);
    for (;;) {
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      const out = headerOf(buffer, bytesRead, length, size, file);
      if (typeof out !== 'number') return out;
      length = out;
    }
  } catch (err) {
    if (err instanceof DicomReadError) throw err;
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    await handle.close();
  }
}

/**
 * `readHeader` with blocking reads, for a thread that does nothing but decode (the pool's) and
 * for scans. A first read that fits `reuse` goes into it, so the header lives there only until
 * the next call given the same buffer.
 */
export function readHeaderSync(file: string, reuse?: Buffer): ParsedFile {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const size = fstatSync(fd).size;
    let length = Math.min(size, FIRST_READ);
    for (;;) {
      const buffer = reuse !== undefined && length <= reuse.length ? reuse : Buffer.allocUnsafe(length);
      const out = headerOf(buffer, readSync(fd, buffer, 0, length, 0), length, size, file);
      if (typeof out !== 'number') return out;
      length = out;
    }
  } catch (err) {
    if (err instanceof DicomReadError) throw err;
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** The header in the first `bytesRead` bytes of `buffer`, or how many bytes to read next. */
function headerOf(buffer: Buffer, bytesRead: number, length: number, size: number, file: string): ParsedFile | number {
  const whole = bytesRead >= size || bytesRead < length;
  const result = parseHeader(buffer.subarray(0, bytesRead), whole);
  if (result === 'more' && !whole) return nextRead(length, size);
  if (result === 'all' && !whole) return size;
  const out = parsed(result, file, size, true);
  const bytes = out.ds.byteArray;
  return bytes.buffer === buffer.buffer ? { ...out, fileOffset: bytes.byteOffset - buffer.byteOffset } : out;
}

export async function readAll(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fail('READ_ERROR', file, code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`);
  }
}

/** The first value of a string element, trimmed; undefined when absent or empty. */
export function str(ds: DataSet, tag: string): string | undefined {
  const v = ds.string(tag);
  return v === undefined || v === '' ? undefined : v;
}

/** The whole value of a string element with its backslashes (all values), trimmed. */
export function raw(ds: DataSet, tag: string): string | undefined {
  const el = ds.elements[tag];
  if (el === undefined || el.length === 0 || el.length === 0xffffffff) return undefined;
  const text = ds.text(tag);
  return text === undefined ? undefined : text.replace(/\0+$/, '').trim();
}

/** Numbers of a decimal-string element (`a\b\c`); undefined when absent or unparsable. */
export function numbers(ds: DataSet, tag: string): number[] | undefined {
  const text = raw(ds, tag);
  if (text === undefined) return undefined;
  const out = text.split('\\').map((s) => Number(s.trim()));
  return out.length > 0 && out.every((n) => Number.isFinite(n)) ? out : undefined;
}

/** An unsigned short (US) element; undefined when absent. */
export function us(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  return el === undefined || el.length < 2 ? undefined : ds.uint16(tag);
}
