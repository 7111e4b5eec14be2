import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { SimRequest } from '../http-types.js';
import { isLocalData, readMetaLayout } from '../../volume/metaimage.js';
import { readNrrdLayout } from '../../volume/nrrd.js';
import { ImageReadError } from '../../volume/read-image.js';
import { readImagePath, readImageUpload, type ImageRead } from '../../volume/read-by-content.js';
import { Problem } from '../problem.js';
import type { Volume } from '../../volume/volume.js';
import { isJsonObject, type StorageContext } from './request-body.js';
import type { Json } from '../../volume/json-literals.js';
import type { PropertyList } from '../datastore-types.js';
import { decodeProperty } from '../property-codec.js';

/** Data that arrived with a request, and the file name it came under (for a default node name). */
export interface Upload {
  volume: Volume;
  fileName: string | undefined;
  /** Data properties the reader set (DICOM: level window, name, tags), in their wire form. */
  properties?: ImageRead['properties'];
  /** MITK's `meta.warning` when the file held more data objects than the one assigned. */
  warning?: string;
}

export type TransferKind = 'json' | 'direct' | 'none';

/**
 * The transfer mode a create or data PUT asks for, from its Content-Type (matched by
 * substring, as the real server does): JSON = file reference, octet-stream = the bytes
 * themselves. No Content-Type is `none`; anything else is 415.
 */
export function transferKind(req: SimRequest): TransferKind {
  const type = req.headers['content-type'];
  if (type === undefined || type === '') return 'none';
  if (type.includes('application/json')) return 'json';
  if (type.includes('application/octet-stream')) return 'direct';
  throw new Problem(
    'UNSUPPORTED_FORMAT',
    `Unsupported Content-Type '${type.slice(0, 80)}'; use application/json (file reference) or application/octet-stream (the file's bytes)`,
  );
}

const AVAILABLE_MODES = ['file-reference', 'direct'];

/**
 * The file a JSON body's `transfer` names, read from the server's file system. A transfer
 * without `file_path` yields nothing unless `required` (PUT data).
 */
export async function fileReferenceUpload(
  ctx: StorageContext,
  transfer: Json | undefined,
  required: boolean,
): Promise<Upload | undefined> {
  if (transfer === undefined) {
    if (required) throw new Problem('INVALID_REQUEST', 'Missing transfer.file_path in request body');
    return undefined;
  }
  if (!isJsonObject(transfer))
    throw new Problem(
      'INVALID_REQUEST',
      '"transfer" must be an object {"mode"?: "file-reference", "file_path": "<absolute path>"}',
    );
  const mode = transfer.mode;
  if (mode !== undefined && !(typeof mode === 'string' && AVAILABLE_MODES.includes(mode))) {
    throw new Problem(
      'TRANSFER_MODE_NOT_AVAILABLE',
      `Transfer mode '${String(mode)}' is not available; use file-reference or direct`,
      {
        extra: { available_modes: AVAILABLE_MODES },
      },
    );
  }
  const filePath = transfer.file_path;
  if (filePath === undefined) {
    if (required) throw new Problem('INVALID_REQUEST', 'Missing transfer.file_path in request body');
    return undefined;
  }
  if (typeof filePath !== 'string' || filePath === '')
    throw new Problem('INVALID_REQUEST', 'transfer.file_path must be a non-empty string (a path on the server)');
  // A folder is a DICOM folder to MITK: every series in it is read.
  const real = ctx.files.readable(filePath, true);
  await checkDataFile(ctx, real);
  return { ...(await asProblem(() => readImagePath(real), filePath)), fileName: basename(filePath) };
}

/**
 * A detached header (`.nhdr`, `.mhd`) names a data file of its own; with allowed directories
 * that file must be inside them too, or a header could read any file of the server.
 */
async function checkDataFile(ctx: StorageContext, header: string): Promise<void> {
  if (!ctx.files.restricted || !/\.(nrrd|nhdr|mha|mhd)$/i.test(header)) return;
  let dataFile: string | undefined;
  try {
    const bytes = await readFile(header);
    if (/\.(nrrd|nhdr)$/i.test(header)) dataFile = readNrrdLayout(bytes).dataFile;
    else {
      const layout = readMetaLayout(bytes);
      if (!isLocalData(layout)) dataFile = layout.dataFile;
    }
  } catch {
    return; // A header that cannot be parsed is reported by the reader itself.
  }
  if (dataFile !== undefined) ctx.files.readable(resolve(dirname(header), dataFile));
}

/**
 * The format of uploaded bytes and the volume read from them. Without an extension (from the
 * Content-Disposition filename, else X-MITK-Data-Format) the real server cannot name the
 * temporary file it loads, and answers 400 before it looks at the bytes, DICOM or not
 * (`mitkDataStorageController.cpp`: `ResolveDataPath`).
 */
export async function directUpload(req: SimRequest): Promise<Upload> {
  if (req.body.length === 0) throw new Problem('INVALID_REQUEST', 'Request body is empty; send the file bytes');
  const fileName = dispositionFileName(req.headers['content-disposition']);
  const format =
    (fileName === undefined ? undefined : extensionOf(fileName)) ?? req.headers['x-mitk-data-format']?.trim();
  if (!format) {
    throw new Problem(
      'INVALID_REQUEST',
      'Cannot determine file format: send Content-Disposition: attachment; filename="<name>.<ext>" or X-MITK-Data-Format: <ext> (e.g. nrrd, nii.gz, dcm)',
    );
  }
  const shown = fileName ?? `the .${format.replace(/^\./, '')} upload`;
  return { ...(await asProblem(() => readImageUpload(req.body, format, fileName), shown)), fileName };
}

/** `filename="x.nrrd"` or `filename=x.nrrd`. */
function dispositionFileName(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(header);
  const name = m?.[1] ?? m?.[2];
  return name === undefined || name === '' ? undefined : basename(name);
}

/**
 * The extension a file name declares. The real server takes only the last suffix (`gz` for
 * `ct.nii.gz`), which our readers take as gzip-compressed NIfTI; the full `nii.gz` is
 * recognised too, so a client may rely on either reading.
 */
function extensionOf(fileName: string): string | undefined {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.nii.gz')) return 'nii.gz';
  const dot = lower.lastIndexOf('.');
  return dot > 0 && dot < lower.length - 1 ? lower.slice(dot + 1) : undefined;
}

/**
 * The reader's data properties as the store holds them. They come from our own reader in
 * MITK's wire form, so each decodes; one that would not is left out rather than failing a load.
 */
export function dataPropertiesOf(upload: Upload | undefined): PropertyList {
  const out: PropertyList = new Map();
  for (const [key, wire] of Object.entries(upload?.properties ?? {})) {
    const decoded = decodeProperty(wire as Json);
    if (decoded.ok) out.set(key, decoded.value);
  }
  return out;
}

/** A node name from a file name: without directory and image extension. */
export function stem(fileName: string): string {
  return fileName.replace(/\.nii\.gz$/i, '').replace(/\.[^.]+$/, '') || fileName;
}

/**
 * A file that exists but does not load is 422 FILE_READ_ERROR, whatever the reason: MITK's
 * `DataStorageController::LoadDataFromFile` answers 422 for every exception of `IOUtil::Load`,
 * and `IOUtil::Load` throws for a file no reader takes ("No reader available"), for a reader
 * that fails, and for one that returns nothing ("Unknown read error"), so the controller's
 * 415 for an empty result is never reached (`mitkIOUtil.cpp`: `IOUtil::Load`). Our readers'
 * finer codes (`UNSUPPORTED_FORMAT` for "not a format read here") live on in their messages.
 */
async function asProblem(read: () => Promise<ImageRead>, shown: string): Promise<ImageRead> {
  try {
    return await read();
  } catch (err) {
    // MITK's words (ErrorResponse::FileReadError), with the name the sender knows: an upload's
    // temporary file means nothing to it.
    if (err instanceof ImageReadError)
      throw new Problem('FILE_READ_ERROR', `Cannot read file '${shown}': ${err.message}`);
    throw err;
  }
}
