/**
 * `load` of a DICOM series. MITK reads a series from the folder of the file it is given, so a
 * workbench that can read our files gets a file reference to one file of the series and reads
 * the rest itself. One that cannot (another machine, outside its allowed directories) would
 * get one file alone, written to a temporary folder: one slice. So for it the series is read
 * here, with the same reader, and sent as one NRRD (the MITK Python client's way of sending
 * data held in memory), followed by the properties MITK would have set from the DICOM.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { WorkbenchClient } from '../client/index.js';
import type { PropertyValue } from '../client/properties.js';
import { colormapProperty } from '../client/lookup-tables.js';
import { isDicomFile, readDicom, type DicomRead } from '../volume/dicom/index.js';
import { readHeader } from '../volume/dicom/data-set.js';
import { nodeName } from '../volume/dicom/properties.js';
import { scanDicomFolder, seriesLabel, type DicomSeries } from '../volume/dicom/scan.js';
import { matchesWhere, whereText, type Where } from '../volume/dicom/where.js';
import { writeNrrd } from '../volume/nrrd-writer.js';

/** Candidates shown in an error before "and N more". */
const SHOWN = 8;

/** A load that cannot pick its series: the code a report shows, the candidates in the hint. */
export class DicomLoadError extends Error {
  override name = 'DicomLoadError';
  constructor(
    readonly code: 'DICOM_NO_SERIES' | 'DICOM_SERIES_AMBIGUOUS' | 'DICOM_WHERE_ON_FILE',
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * The DICOM file to load for `load: {file, where}`, or undefined when `file` is not DICOM (then
 * the load goes on as for any image file). A folder is DICOM by definition here: its series are
 * scanned (not its sub-folders, as MITK reads a folder) and `where` picks exactly one.
 */
export async function dicomFileToLoad(
  file: string,
  where: Where | undefined,
  format?: string,
): Promise<string | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) return pickSeries(file, where).path;
  // A missing file is the upload's to report (FILE_NOT_FOUND, with the folder it looked in).
  if (info === undefined) return undefined;
  if (format !== undefined) {
    if (where) throw whereOnFile(file);
    return undefined;
  }
  const dicom = await isDicomFile(file);
  if (where) throw whereOnFile(file);
  return dicom ? file : undefined;
}

function whereOnFile(file: string): DicomLoadError {
  return new DicomLoadError(
    'DICOM_WHERE_ON_FILE',
    `${file}: \`where\` picks a series of a folder, and this is a file`,
    'give the folder as `file`, or leave `where` out: a file of a series loads that series',
  );
}

/** The one series of `folder` that `where` matches, else an error listing the candidates. */
export function pickSeries(folder: string, where: Where | undefined): DicomSeries {
  const { series, counts } = scanDicomFolder(folder, { recursive: false });
  if (series.length === 0) {
    throw new DicomLoadError(
      'DICOM_NO_SERIES',
      `${folder}: no DICOM series in this folder (${counts.files} files, ${counts.dicom} DICOM, ${counts.notSeries} without pixel data)`,
      'a folder is read without its sub-folders, as MITK reads it; give the folder that holds the files',
    );
  }
  const matching = where ? series.filter((s) => matchesWhere(s.keywords, where)) : series;
  if (matching.length === 1) return matching[0]!;
  const shown = (list: DicomSeries[]): string =>
    `${list
      .slice(0, SHOWN)
      .map((s) => seriesLabel(s, folder))
      .join('; ')}${list.length > SHOWN ? `; and ${list.length - SHOWN} more` : ''}`;
  if (matching.length === 0) {
    throw new DicomLoadError(
      'DICOM_NO_SERIES',
      `${folder}: no series matches \`${whereText(where ?? {})}\``,
      `its series: ${shown(series)}`,
    );
  }
  throw new DicomLoadError(
    'DICOM_SERIES_AMBIGUOUS',
    where
      ? `${folder}: ${matching.length} series match \`${whereText(where)}\`; a load takes one`
      : `${folder}: holds ${matching.length} series; pick one with \`where\` (e.g. { SeriesNumber: ${String(matching[0]!.keywords.SeriesNumber ?? 1)} })`,
    `${where ? 'matching' : 'its'} series: ${shown(matching)}`,
  );
}

/** MITK's node name for a DICOM image: the reader's "Study / Series" rule, else the file name. */
export async function dicomNodeName(file: string): Promise<string> {
  const header = await readHeader(file).catch(() => undefined);
  return (header && nodeName(header.ds)) || basename(file).replace(/\.[^.]*$/, '');
}

export interface DicomCreate {
  file: string;
  name?: string;
  /** Marker and display properties of the step; the DICOM's own follow them. */
  properties: Record<string, PropertyValue>;
  provisionalName: string;
  parent?: string;
  transfer: 'auto' | 'direct' | 'file-reference';
  signal: AbortSignal;
}

export interface DicomCreated {
  uid: string;
  failed: string[];
  sent: 'file-reference' | 'nrrd';
  slices?: number;
}

/** Makes the node of a DICOM series on the workbench, by reference or as NRRD (see the module comment). */
export async function createDicomNode(client: WorkbenchClient, c: DicomCreate): Promise<DicomCreated> {
  const call = { signal: c.signal };
  const parent = c.parent !== undefined ? { parent: c.parent } : {};
  const mode = await client.nodes.transferFor(c.file, {
    ...(c.transfer !== 'auto' ? { transfer: c.transfer } : {}),
    ...call,
  });
  if (mode === 'file-reference') {
    const created = await client.nodes.create({
      file: c.file,
      transfer: 'file-reference',
      name: c.name ?? (await dicomNodeName(c.file)),
      properties: c.properties,
      ...parent,
      ...call,
    });
    return { uid: created.node.uid, failed: created.failed_properties, sent: 'file-reference' };
  }
  const read = seriesImage(await readDicom(c.file), c.file);
  // gzip level 1: a 300-slice 512² CT (315 MB of int32) compresses in a fifth of level 6's time
  // and comes out 18% larger (11.6 s and 53 MB against 62 s and 45 MB, measured on 2 busy cores).
  const bytes = writeNrrd(read.volume, { gzipLevel: 1 });
  // Compressing holds the event loop for seconds, in which the workbench may close the idle
  // keep-alive connection of the requests above. Its closing is only seen once I/O is polled:
  // without this turn of the loop the upload goes out on the closed connection and is reset.
  await new Promise((resolve) => setImmediate(resolve));
  const props = sentProperties(read, c);
  const created = await client.nodes.create({
    bytes,
    format: 'nrrd',
    filename: `${basename(c.file).replace(/[^A-Za-z0-9_-]/g, '_') || 'dicom'}.nrrd`,
    name: props.name,
    provisionalName: c.provisionalName,
    properties: props.node,
    ...parent,
    ...call,
  });
  const uid = created.node.uid;
  const failed = [...created.failed_properties, ...(await patchData(client, uid, props.data, call))];
  return { uid, failed, sent: 'nrrd', slices: read.slices };
}

/**
 * Completes the node an earlier attempt of the load made, when that attempt sent the series as
 * NRRD: the upload may have landed without one or both of the property requests that follow it
 * (refused, or their answers lost). Both are sent again, with the values a first attempt sends;
 * setting a property to the value it has changes nothing. Undefined when the series goes by
 * file reference: the workbench then set everything itself, in the request that made the node.
 */
export async function completeDicomNode(
  client: WorkbenchClient,
  uid: string,
  c: DicomCreate,
): Promise<DicomCreated | undefined> {
  const call = { signal: c.signal };
  const mode = await client.nodes.transferFor(c.file, {
    ...(c.transfer !== 'auto' ? { transfer: c.transfer } : {}),
    ...call,
  });
  if (mode === 'file-reference') return undefined;
  const read = seriesImage(await readDicom(c.file), c.file);
  const props = sentProperties(read, c);
  const patched = await client.properties.patch(uid, { name: props.name, ...props.node }, call);
  const failed = [...patched.failed.map((f) => f.property), ...(await patchData(client, uid, props.data, call))];
  return { uid, failed, sent: 'nrrd', slices: read.slices };
}

interface SentProperties {
  name: string;
  /** On the node, with the step's marker and display: what MITK's mapper derives from the DICOM. */
  node: Record<string, PropertyValue>;
  /** On the data: what MITK's reader keeps on the image. */
  data: Record<string, PropertyValue>;
}

function sentProperties(read: DicomRead, c: DicomCreate): SentProperties {
  // What MITK keeps on the image (its data) when it reads the files: the tags, its name and
  // level window; the client's paths (MITK.IO.reader.DICOM.files) mean nothing over there.
  const data = Object.fromEntries(
    Object.entries(read.properties).filter(
      ([key]) => key.startsWith('DICOM.') || key === 'name' || key === 'levelwindow',
    ),
  );
  return {
    name: c.name ?? String(read.properties.name),
    node: { ...c.properties, ...displayFromDicom(read) },
    data,
  };
}

async function patchData(
  client: WorkbenchClient,
  uid: string,
  data: Record<string, PropertyValue>,
  call: { signal: AbortSignal },
): Promise<string[]> {
  if (Object.keys(data).length === 0) return [];
  const patched = await client.properties.patch(uid, data, { scope: 'data', ...call });
  return patched.failed.map((f) => f.property);
}

/** The image block of the given file; a DICOM SEG is sent as its label volume. */
function seriesImage(reads: DicomRead[], file: string): DicomRead & { volume: NonNullable<DicomRead['volume']> } {
  const read = reads.find((r) => r.files.includes(file)) ?? reads[0];
  if (!read?.volume) throw new DicomLoadError('DICOM_NO_SERIES', `${file}: the DICOM reader gave no image`);
  const volume =
    read.segmentation && !read.volume.segmentation ? { ...read.volume, segmentation: read.segmentation } : read.volume;
  return { ...read, volume };
}

/**
 * The node properties MITK derives from the DICOM when it loads it: the level window of the
 * first slice's window tags, and for MONOCHROME1 the inverse grey lookup table drawn through the
 * level window (`ImageVtkMapper2D::SetDefaultProperties`).
 */
function displayFromDicom(read: DicomRead): Record<string, PropertyValue> {
  const out: Record<string, PropertyValue> = {};
  const lw = read.properties.levelwindow;
  if (lw !== undefined) out.levelwindow = lw;
  const photometric =
    read.properties['dicom.pixel.PhotometricInterpretation'] ?? firstValue(read.properties['DICOM.0028.0004']);
  if (typeof photometric === 'string' && photometric.includes('MONOCHROME1')) {
    out.LookupTable = colormapProperty('Inverse Grayscale');
    out['Image Rendering.Mode'] = { type: 'RenderingModeProperty', value: 'LookupTable_LevelWindow_Color' };
  }
  return out;
}

/** The first value of a DICOM.* property (TemporoSpatialStringProperty JSON). */
function firstValue(p: unknown): string | undefined {
  const values = (p as { value?: { values?: { value?: unknown }[] } } | undefined)?.value?.values;
  const v = values?.[0]?.value;
  return typeof v === 'string' ? v : undefined;
}
