import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Volume } from './volume.js';
import { gunzip, isGzip } from './compression.js';
import { ImageReadError, unreadable } from './image-read-error.js';
import { isLocalData, readMetaData, readMetaLayout } from './metaimage.js';
import { niftiVersion, readNifti } from './nifti.js';
import { readNrrdData, readNrrdLayout } from './nrrd.js';

export { ImageReadError } from './image-read-error.js';

/** The image formats read, by extension (lower case, no dot); `gz` is a gzip-compressed NIfTI. */
export type ImageFormat = 'nrrd' | 'nhdr' | 'nii' | 'nii.gz' | 'gz' | 'mha' | 'mhd';
const FORMATS: readonly ImageFormat[] = ['nrrd', 'nhdr', 'nii', 'nii.gz', 'gz', 'mha', 'mhd'];
const KNOWN = '.nrrd, .nhdr, .nii, .nii.gz, .mha or .mhd';

/** Format of a file name (`ct.NRRD`, `brain.nii.gz`), or an `UNSUPPORTED_FORMAT` error. */
export function imageFormat(fileName: string): ImageFormat {
  const lower = fileName.trim().toLowerCase();
  if (lower.endsWith('.nii.gz')) return 'nii.gz';
  const dot = lower.lastIndexOf('.');
  if (dot < 0)
    throw new ImageReadError('UNSUPPORTED_FORMAT', `'${fileName.slice(0, 60)}' has no file extension; use ${KNOWN}`);
  return extensionFormat(lower.slice(dot + 1));
}

/** Format of an upload's declared extension (`nii.gz`, `.NRRD`), or an `UNSUPPORTED_FORMAT` error. */
export function extensionFormat(extension: string): ImageFormat {
  const lower = extension.trim().toLowerCase();
  const bare = lower.startsWith('.') ? lower.slice(1) : lower;
  if ((FORMATS as readonly string[]).includes(bare)) return bare as ImageFormat;
  const shown = bare === '' ? 'no format was given' : `'.${bare.slice(0, 20)}' is not an image format read here`;
  throw new ImageReadError('UNSUPPORTED_FORMAT', `${shown}; use ${KNOWN}`);
}

/**
 * Reads an image file; the format follows from the name (`.nrrd`, `.nhdr`, `.nii`, `.nii.gz`,
 * `.mha`, `.mhd`). The data file of a detached header is resolved relative to the header.
 */
export async function readImageFile(path: string): Promise<Volume> {
  const format = imageFormat(basename(path));
  const bytes = await readBytes(path, 'image file');
  const first = guardSync((): Volume | Detached => {
    if (format === 'nhdr' || format === 'nrrd') {
      const layout = readNrrdLayout(bytes);
      if (layout.dataFile === undefined) return readNrrdData(layout, bytes, layout.header.dataOffset, 'NRRD');
      const name = layout.dataFile;
      return { detached: name, read: (data) => readNrrdData(layout, data, 0, `NRRD data file '${name}'`) };
    }
    if (format === 'mha' || format === 'mhd') {
      const layout = readMetaLayout(bytes);
      if (isLocalData(layout)) return readMetaData(layout, bytes, layout.dataOffset, 'MetaImage');
      return {
        detached: layout.dataFile,
        read: (data) => readMetaData(layout, data, 0, `MetaImage data file '${layout.dataFile}'`),
      };
    }
    return readNiftiBytes(bytes, format);
  });
  if (!('detached' in first)) return first;
  const data = await readBytes(
    resolve(dirname(path), first.detached),
    `data file '${first.detached}' named by the header:`,
  );
  return guardSync(() => first.read(data));
}

/**
 * Reads an uploaded image; `format` is the extension without its dot, e.g. `nrrd` or `nii.gz`.
 * A detached header alone cannot be read: its data file was not uploaded.
 */
export function readImageBytes(bytes: Uint8Array, format: string): Volume {
  const kind = extensionFormat(format);
  return guardSync(() => {
    if (kind === 'nrrd' || kind === 'nhdr') {
      const layout = readNrrdLayout(bytes);
      if (layout.dataFile !== undefined) missingDataFile(layout.dataFile);
      return readNrrdData(layout, bytes, layout.header.dataOffset, 'NRRD');
    }
    if (kind === 'mha' || kind === 'mhd') {
      const layout = readMetaLayout(bytes);
      if (!isLocalData(layout)) missingDataFile(layout.dataFile);
      return readMetaData(layout, bytes, layout.dataOffset, 'MetaImage');
    }
    return readNiftiBytes(bytes, kind);
  });
}

function readNiftiBytes(bytes: Uint8Array, format: ImageFormat): Volume {
  if (isGzip(bytes)) {
    const inner = gunzip(bytes, 'NIfTI');
    if (format === 'gz' && niftiVersion(inner) === undefined)
      unreadable('the .gz data is not a gzip-compressed NIfTI image');
    return readNifti(inner);
  }
  if (format === 'gz') unreadable('the .gz data is not gzip-compressed');
  return readNifti(bytes);
}

function missingDataFile(name: string): never {
  unreadable(
    `the data file '${name}' named by the detached header is missing: a header uploaded alone carries no voxels; ` +
      'upload an attached-header file (.nrrd, .mha, .nii, .nii.gz) or use file-reference transfer',
  );
}

async function readBytes(path: string, what: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EISDIR'
          ? 'is a directory'
          : `cannot be read (${code ?? String(err)})`;
    throw new ImageReadError('FILE_READ_ERROR', `${what} ${path} ${reason}`);
  }
}

type Detached = { detached: string; read: (data: Uint8Array) => Volume };

/**
 * Bad input must surface as an ImageReadError; anything else a reader throws on hostile bytes
 * (a RangeError from a typed-array view, say) is reported as an unreadable file, not a crash.
 */
function guardSync<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ImageReadError) throw err;
    if (err instanceof RangeError && /allocation|memory|Array buffer/i.test(err.message)) {
      throw new ImageReadError('FILE_READ_ERROR', `the image is too large to read into memory (${err.message})`);
    }
    throw new ImageReadError(
      'FILE_READ_ERROR',
      `the file is corrupt: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
