import { createReadStream, type ReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { WorkbenchUsageError } from './errors.js';

/** Suffixes that compress another format: `ct.nii.gz` is format `nii.gz`, not `gz`. */
const COMPRESSION = new Set(['gz', 'bz2', 'xz', 'zst']);

/** Read size for uploads; larger than the fs default (64 KiB) so a big file needs fewer writes. */
const CHUNK = 1 << 20;

export interface FileName {
  /** The name without its format suffix, e.g. `ct` for `ct.nii.gz`. */
  stem: string;
  /** Format as the workbench names it (extension without dot), e.g. `nrrd`, `nii.gz`; null when none. */
  format: string | null;
}

export function splitFileName(name: string): FileName {
  const base = basename(name);
  const parts = base.split('.');
  if (parts.length < 2 || parts[0] === '') return { stem: base, format: null };
  const last = (parts.at(-1) ?? '').toLowerCase();
  if (COMPRESSION.has(last) && parts.length >= 3) {
    return { stem: parts.slice(0, -2).join('.'), format: `${(parts.at(-2) ?? '').toLowerCase()}.${last}` };
  }
  return { stem: parts.slice(0, -1).join('.'), format: last };
}

/**
 * Headers of a direct (raw bytes) upload. The server takes the format from the
 * Content-Disposition filename's extension and consults `X-MITK-Data-Format` only when the
 * filename has none; it may also take only the last suffix (`gz` of `ct.nii.gz`). So for a
 * two-part format the filename carries no extension at all (`ct`, dots of the stem turned
 * into `_`) and the header names the format: both readings of the server then load `nii.gz`.
 */
export function directUploadHeaders(stem: string, format: string, size: number): Record<string, string> {
  const twoPart = format.includes('.');
  const safeStem = headerSafe(twoPart ? stem.replaceAll('.', '_') : stem) || 'data';
  const filename = twoPart ? safeStem : `${safeStem}.${format}`;
  return {
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${filename}"`,
    'x-mitk-data-format': format,
    'content-length': String(size),
  };
}

/** Header values must be visible ASCII; quotes and backslashes would break the quoted filename. */
function headerSafe(s: string): string {
  return s.replace(/[^\x20-\x7e]|["\\]/g, '_');
}

export interface OpenedFile {
  stream: ReadStream;
  size: number;
  /** Bytes read from disk so far (the transport pushes its deadline back while this grows). */
  progress: () => number;
}

/** Opens a file for streaming: it is never read whole into memory. */
export async function openForUpload(path: string): Promise<OpenedFile> {
  const st = await statFile(path);
  const stream = createReadStream(path, { highWaterMark: CHUNK });
  return { stream, size: st.size, progress: () => stream.bytesRead };
}

export async function statFile(path: string): Promise<{ size: number }> {
  let st;
  try {
    st = await stat(path);
  } catch {
    throw new WorkbenchUsageError(
      'FILE_NOT_FOUND',
      `${path}: no such file; check the path (relative paths are taken from ${process.cwd()})`,
    );
  }
  if (!st.isFile()) throw new WorkbenchUsageError('FILE_NOT_FOUND', `${path}: not a regular file`);
  return { size: st.size };
}

/**
 * The path sent in file-reference mode: absolute, with `..` and symlinks resolved, so the
 * allowed-directory check here sees the same file the server will open.
 */
export async function referencePath(path: string): Promise<string> {
  await statFile(path);
  return realpath(resolve(path));
}

/** Whether `file` (already resolved) lies inside one of `allowed` (resolved the same way when they exist here). */
export async function insideAllowed(file: string, allowed: readonly string[]): Promise<boolean> {
  for (const base of allowed) {
    if (!isAbsolute(base)) continue;
    const real = await realpath(base).catch(() => resolve(base));
    const rel = relative(real, file);
    if (rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))) return true;
  }
  return false;
}
