import { open, readFile } from 'node:fs/promises';
import dicomParser, { type DataSet } from 'dicom-parser';
import { DicomReadError, fail } from './errors.js';

export const IMPLICIT_LE = '1.2.840.10008.1.2';
export const EXPLICIT_LE = '1.2.840.10008.1.2.1';
export const DEFLATED = '1.2.840.10008.1.2.1.99';
export const EXPLICIT_BE = '1.2.840.10008.1.2.2';
const PIXEL_DATA = 'x7fe00010';

/** A parsed data set and the transfer syntax its pixel data is encoded in. */
export interface ParsedFile {
  file: string;
  ds: DataSet;
  transferSyntax: string;
  /** Whether parsing stopped at the pixel data (a header read). */
  headerOnly: boolean;
}

/** Whether the bytes start like a DICOM file: the `DICM` preamble, or a bare data set of group 0008. */
export function looksLikeDicom(bytes: Uint8Array): boolean {
  if (bytes.length >= 132 && bytes[128] === 0x44 && bytes[129] === 0x49 && bytes[130] === 0x43 && bytes[131] === 0x4d)
    return true;
  return bareSyntax(bytes) !== undefined;
}

/**
 * The transfer syntax of a data set written without the Part 10 header, as GDCM guesses it:
 * group 0008 (or 0002) first, explicit when a VR follows the tag. Anything else is no DICOM.
 */
function bareSyntax(bytes: Uint8Array): string | undefined {
  if (bytes.length < 8) return undefined;
  const group = bytes[0]! | (bytes[1]! << 8);
  if (group !== 0x0008 && group !== 0x0002) return undefined;
  const vr = String.fromCharCode(bytes[4]!, bytes[5]!);
  return /^[A-Z]{2}$/.test(vr) ? EXPLICIT_LE : IMPLICIT_LE;
}

/** Parses a whole file (pixel data located, not copied). */
export function parseBytes(bytes: Uint8Array, file: string, untilPixels = false): ParsedFile {
  const syntax = looksLikePart10(bytes) ? undefined : bareSyntax(bytes);
  if (!looksLikePart10(bytes) && syntax === undefined)
    fail('NOT_DICOM', file, 'is not a DICOM file (no DICM preamble and no data set at its start)');
  let ds: DataSet;
  try {
    ds = dicomParser.parseDicom(bytes, {
      ...(untilPixels ? { untilTag: PIXEL_DATA } : {}),
      ...(syntax === undefined ? {} : { TransferSyntaxUID: syntax }),
    });
  } catch (err) {
    throw parseError(err, file, bytes.length);
  }
  const transferSyntax = (ds.string('x00020010') ?? syntax ?? IMPLICIT_LE).replace(/\0/g, '').trim();
  return { file, ds, transferSyntax, headerOnly: untilPixels };
}

function looksLikePart10(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 132 && bytes[128] === 0x44 && bytes[129] === 0x49 && bytes[130] === 0x43 && bytes[131] === 0x4d
  );
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

const HEAD_BYTES = 64 * 1024;

/**
 * Reads a file's header only: the first 64 KiB usually hold every element before the pixel
 * data; a longer header (or a deflated data set) is read whole.
 */
export async function readHeader(file: string): Promise<ParsedFile> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    fail('READ_ERROR', file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let head: Uint8Array;
  let size: number;
  try {
    size = (await handle.stat()).size;
    const buffer = Buffer.allocUnsafe(Math.min(size, HEAD_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head.length < size) {
    try {
      const parsed = parseBytes(head, file, true);
      if (parsed.transferSyntax !== DEFLATED && parsed.ds.elements[PIXEL_DATA] !== undefined) return parsed;
    } catch (err) {
      if (err instanceof DicomReadError && err.code === 'NOT_DICOM') throw err;
    }
  }
  return parseBytes(await readAll(file), file, true);
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
