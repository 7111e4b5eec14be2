/**
 * DICOM read as MITK reads it: which files form the image (series, blocks, time steps), its
 * geometry, its values and the properties MITK sets. Data sets are parsed with dicom-parser,
 * compressed pixel data decoded with dcmjs-codecs; this module is the glue.
 */
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { looksLikeDicom, readAll, readHeader, readHeaderSync } from './data-set.js';
import { FIRST_READ } from './header.js';
import { DicomReadError, fail } from './errors.js';
import { expectBlock, readBlockVolume } from './block-volume.js';
import { splitIntoBlocks, type Block } from './blocks.js';
import { blockGeometry } from './geometry.js';
import { shearTiltedVolume } from './tilt-shear.js';
import { blockProperties, type DicomProperty } from './properties.js';
import { isPhilips3D, readPhilips3D } from './philips-3d.js';
import { isSegmentationFile, readSegmentation } from './seg.js';
import { sliceHeader, type SliceHeader } from './slice-header.js';
import type { DicomRead } from './dicom-read.js';

export { DicomReadError } from './errors.js';
export type { DicomErrorCode } from './errors.js';
export type { DicomProperty } from './properties.js';
export type { DicomRead };

export interface ReadDicomOptions {
  /** Read the given file alone, not its series (MITK reading a direct upload's temp file). */
  onlyFile?: boolean;
}

/** Whether the file is DICOM by its content (the DICM preamble or a data set at its start). */
export async function isDicomFile(path: string): Promise<boolean> {
  try {
    const { open } = await import('node:fs/promises');
    const handle = await open(path, 'r');
    try {
      const head = Buffer.alloc(FIRST_READ);
      const { bytesRead } = await handle.read(head, 0, FIRST_READ, 0);
      return looksLikeDicom(head.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

/**
 * Reads DICOM as `mitk::IOUtil::Load` does. A file: the block of its series (same folder, same
 * SeriesInstanceUID) that holds it. A folder: every block of every series in it (not
 * recursive), in MITK's output order. `onlyFile`: that file alone.
 */
export async function readDicom(path: string, options: ReadDicomOptions = {}): Promise<DicomRead[]> {
  const info = await stat(path).catch((err: NodeJS.ErrnoException) =>
    fail('READ_ERROR', path, err.code === 'ENOENT' ? 'does not exist' : `cannot be read (${err.code ?? String(err)})`),
  );
  if (info.isDirectory()) return readFolder(path);
  const header = await readHeader(path);
  if (isPhilips3D(header.ds)) return [await readPhilips3D(path)];
  const given = sliceHeader(header);
  if (isSegmentationFile(given)) return [await readSegmentation(path, await readAll(path))];
  if (options.onlyFile || given.modality === 'RTDOSE') return readBlocks([given], [given], path);
  const others = await folderHeaders(dirname(path), path, given);
  const series = given.seriesUid === undefined ? [] : others.filter((h) => h.seriesUid === given.seriesUid);
  return readBlocks([given, ...series], [given], path);
}

async function readFolder(dir: string): Promise<DicomRead[]> {
  const headers = await folderHeaders(dir);
  if (headers.length === 0)
    fail('NO_IMAGE', dir, 'holds no DICOM image file (the folder is read without its subfolders)');
  return readBlocks(headers, undefined, dir);
}

const HEADERS_PER_TURN = 64;

/**
 * Headers of the folder's DICOM image files; files that are not (or not readable) DICOM images
 * are left out, as GDCM's probe leaves them. The first header known (`given`, else the first
 * read) tells the decode pool what may follow.
 */
async function folderHeaders(dir: string, except?: string, given?: SliceHeader): Promise<SliceHeader[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names = entries.filter((e) => e.isFile() && join(dir, e.name) !== except).map((e) => join(dir, e.name));
  if (given !== undefined) expectBlock(names.length + 1, given);
  const out: SliceHeader[] = [];
  // Blocking reads: a header is one small read, and 300 of them take a third of the time they
  // take as awaited file operations (each an open, a stat, a read and a close through libuv's
  // threads). The event loop gets a turn between groups of files, so a large folder does not
  // hold up the rest of the process.
  for (let i = 0; i < names.length; i++) {
    if (i % HEADERS_PER_TURN === HEADERS_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    try {
      const header = sliceHeader(readHeaderSync(names[i]!));
      if (given === undefined && out.length === 0) expectBlock(names.length, header);
      out.push(header);
    } catch (err) {
      if (!(err instanceof DicomReadError)) throw err;
    }
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

async function readBlocks(
  files: SliceHeader[],
  wanted: SliceHeader[] | undefined,
  where: string,
): Promise<DicomRead[]> {
  const { configuration, blocks } = splitIntoBlocks(files);
  const chosen = wanted === undefined ? blocks : blocks.filter((b) => b.timeSteps.some((s) => s.includes(wanted[0]!)));
  if (chosen.length === 0) fail('NO_IMAGE', where, 'yields no image block');
  // MITK loads each block on its own and drops one that fails, logging it
  // (`BaseDICOMReaderService::DoRead` after `DICOMITKSeriesGDCMReader::LoadImages`); only when no
  // block loads does the read fail, here with the first block's reason rather than MITK's bare
  // "Unknown read error".
  const out: DicomRead[] = [];
  let firstError: DicomReadError | undefined;
  for (const block of chosen) {
    try {
      out.push(await readBlock(block, configuration));
    } catch (err) {
      if (!(err instanceof DicomReadError)) throw err;
      firstError ??= err;
    }
  }
  if (out.length === 0) throw firstError!;
  return out;
}

async function readBlock(block: Block, configuration: string): Promise<DicomRead> {
  const geometry = blockGeometry(block.timeSteps[0]!);
  // The pool decodes while this thread turns the headers into MITK's properties.
  const reading = readBlockVolume(block.timeSteps, geometry);
  let properties: Record<string, DicomProperty>;
  try {
    properties = blockProperties(block.timeSteps, {
      configuration,
      spacingSource: geometry.spacingSource,
      splitReasons: block.splitReasons,
      tiltCorrected: block.tilt !== undefined,
    });
  } catch (err) {
    await reading.catch(() => undefined);
    throw err;
  }
  const read = await reading;
  const volume = block.tilt ? shearTiltedVolume(read, block.tilt, block.timeSteps[0]![0]!.file) : read;
  const files = block.timeSteps.flat().map((h) => h.file);
  return { kind: 'image', volume, properties, files, slices: volume.dims[2] };
}
