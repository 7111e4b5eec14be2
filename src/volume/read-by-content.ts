import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Volume } from './volume.js';
import { DicomReadError, readDicom, type DicomProperty, type DicomRead } from './dicom/index.js';
import { looksLikeDicom } from './dicom/data-set.js';
import { isDicomFile } from './dicom/index.js';
import { ImageReadError } from './image-read-error.js';
import { extensionFormat, imageFormat, readImageBytes, readImageFile } from './read-image.js';

/** An image read from a path or an upload, with what MITK's reader set on it (DICOM). */
export interface ImageRead {
  volume: Volume;
  /** Data properties as MITK's reader sets them, in their wire form (DICOM only). */
  properties?: Record<string, DicomProperty>;
  /** MITK's REST answer when a file held several data objects and only the first was used. */
  warning?: string;
}

/**
 * Reads an image as the workbench does from a file reference: NRRD, NIfTI and MetaImage by
 * their extension; DICOM by content whatever the name (a file: the block of its series; a
 * folder: its first block, with MITK's warning about the others).
 */
export async function readImagePath(path: string): Promise<ImageRead> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) return firstOf(await dicom(() => readDicom(path), basename(path)));
  if (knownFormat(basename(path))) return { volume: await readImageFile(path) };
  if (!(await isDicomFile(path))) notAnImage(basename(path));
  return firstOf(await dicom(() => readDicom(path), basename(path)));
}

/**
 * Reads uploaded bytes: a declared image format as before; bytes that are DICOM (whatever the
 * name says) as the one file MITK would read, for the upload is written alone to a temporary
 * file on the real server.
 */
export async function readImageUpload(
  bytes: Uint8Array,
  format: string | undefined,
  fileName: string | undefined,
): Promise<ImageRead> {
  if (format !== undefined && knownExtension(format)) return { volume: readImageBytes(bytes, format) };
  if (!looksLikeDicom(bytes)) notAnImage(fileName ?? (format === undefined ? 'the upload' : `the .${format} upload`));
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-upload-'));
  try {
    const file = join(dir, `upload${format ? `.${format.replace(/^\./, '')}` : ''}`);
    await writeFile(file, bytes);
    // The temporary file's path means nothing to the sender: errors name the upload.
    return firstOf(await dicom(() => readDicom(file, { onlyFile: true }), fileName ?? 'the uploaded file', true));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function notAnImage(name: string): never {
  throw new ImageReadError(
    'UNSUPPORTED_FORMAT',
    `${name}: is not a DICOM file (no DICM preamble and no data set at its start) and not an image format read here (.nrrd, .nhdr, .nii, .nii.gz, .mha, .mhd)`,
  );
}

function knownFormat(name: string): boolean {
  try {
    imageFormat(name);
    return true;
  } catch {
    return false;
  }
}

function knownExtension(format: string): boolean {
  try {
    extensionFormat(format);
    return true;
  } catch {
    return false;
  }
}

/**
 * DICOM errors in the readers' codes: what yields no image (not DICOM, a folder without a
 * DICOM image, an object without pixels) is `UNSUPPORTED_FORMAT`, like any format not read
 * here; a DICOM image that fails to read (truncated, corrupt, an unsupported transfer syntax)
 * is `FILE_READ_ERROR`. The workbench answers 422 FILE_READ_ERROR for both, as MITK's REST
 * server does for every file that exists and does not load.
 */
async function dicom(read: () => Promise<DicomRead[]>, shownName: string, upload = false): Promise<DicomRead[]> {
  try {
    return await read();
  } catch (err) {
    // Hostile bytes can make a library throw anything; the answer is still about the file.
    if (!(err instanceof DicomReadError))
      throw new ImageReadError(
        'FILE_READ_ERROR',
        `${shownName}: cannot be read as DICOM (${err instanceof Error ? err.message : String(err)})`,
      );
    const name = upload ? shownName : err.file;
    throw new ImageReadError(
      err.code === 'NOT_DICOM' || err.code === 'NO_IMAGE' ? 'UNSUPPORTED_FORMAT' : 'FILE_READ_ERROR',
      `${name}: ${err.reason} [${err.code}]`,
    );
  }
}

function firstOf(reads: DicomRead[]): ImageRead {
  const first = reads[0]!;
  const n = reads.length;
  return {
    volume: first.volume!,
    properties: first.properties,
    ...(n > 1
      ? {
          warning: `File contained ${n} data objects. Only the first one was assigned to the node. ${n - 1} data object(s) were discarded.`,
        }
      : {}),
  };
}
