/**
 * The DICOM objects a `store` step sends: built here from the case's outputs and its source
 * series, then stored with STOW-RS. Loaded only by a run that stores.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { decodePng } from '../image/png-decode.js';
import { isDicomFile, readDicom } from '../volume/dicom/index.js';
import { readHeader, str } from '../volume/dicom/data-set.js';
import { derivedUid, secondaryCapture, sourceStudyOf, type SourceStudy } from '../volume/dicom/write-sc.js';
import { dicomSeg } from '../volume/dicom/write-seg.js';
import type { SeriesIdentity } from '../volume/dicom/write.js';
import { imageFormat, readImageBytes } from '../volume/read-image.js';
import type { StepArchives, StepRunContext } from './run-context.js';
import type { NodeRef } from './step-definition.js';

/** A `store` step's plan arguments (the step is described in store.ts). */
export interface StoreArgs {
  /** The archive's DICOMweb root. */
  dicomweb: string;
  images?: string[];
  node?: NodeRef;
  /** The node's alias or name as written, for the description. */
  nodeName?: string;
  series_description: string;
  series_number: number;
  /** A file or folder of the source series: its headers give the patient, study and series. */
  source?: string;
  /** The study to store into when the case did not come from DICOM. */
  study?: string;
  /** What the derived UIDs depend on beside the source's: the playbook's name. */
  playbook: string;
}

type Instance = { sopInstanceUid: string; seriesInstanceUid: string; bytes: Uint8Array };

const SOP_INSTANCE_UID = 'x00080018';
const SERIES_INSTANCE_UID = 'x0020000e';
const SOP_CLASS_UID = 'x00080016';

export async function storeInstances(
  a: StoreArgs,
  ctx: StepRunContext & { archives: StepArchives },
): Promise<{ stored: string[]; present: string[] }> {
  const sourceFile = a.source !== undefined ? await firstDicomFile(a.source) : undefined;
  const study = sourceFile !== undefined ? await sourceStudyOf(sourceFile) : await studyFromArchive(a, ctx.archives);
  // The derived series depends on where it came from, which playbook made it and what it is.
  const seriesUid = derivedUid(
    study.seriesInstanceUid ?? study.studyInstanceUid,
    a.playbook,
    a.series_description,
    a.images ? 'secondary capture' : 'segmentation',
  );
  const instances = a.images
    ? await captures(a, study, seriesUid, ctx)
    : [await segmentation(a, study, seriesUid, sourceFile, ctx)];
  return ctx.archives.store(a.dicomweb, study.studyInstanceUid, instances);
}

async function captures(a: StoreArgs, study: SourceStudy, seriesUid: string, ctx: StepRunContext): Promise<Instance[]> {
  const out: Instance[] = [];
  for (const [i, path] of (a.images ?? []).entries()) {
    await ctx.fileWritten(path);
    const image = await decodePng(await readFile(path), basename(path));
    const sopInstanceUid = derivedUid(seriesUid, basename(path));
    const bytes = secondaryCapture(image, {
      study,
      seriesInstanceUid: seriesUid,
      sopInstanceUid,
      seriesNumber: a.series_number,
      instanceNumber: i + 1,
      seriesDescription: a.series_description,
      // The study's own date and time: a rerun makes the same bytes.
      contentDate: study.studyDate,
      contentTime: study.studyTime,
      description: basename(path),
    });
    out.push({ sopInstanceUid, seriesInstanceUid: seriesUid, bytes });
  }
  return out;
}

async function segmentation(
  a: StoreArgs,
  study: SourceStudy,
  seriesUid: string,
  sourceFile: string | undefined,
  ctx: StepRunContext,
): Promise<Instance> {
  if (sourceFile === undefined || a.node === undefined)
    throw Object.assign(new Error('a segmentation is stored against the DICOM series it was drawn on'), {
      code: 'NO_SOURCE_SERIES',
      hint: 'store a segmentation from a case of `foreach: dicom` or `foreach: dicomweb`',
    });
  const uid = await ctx.resolveNode(a.node);
  const data = await ctx.client.nodes.getData(uid, { signal: ctx.signal });
  if (data.mode !== 'direct')
    throw Object.assign(new Error("the workbench gave the segmentation's data as a file reference"), {
      code: 'UNEXPECTED_TRANSFER',
    });
  const volume = readImageBytes(data.bytes, imageFormat(data.filename ?? 'segmentation.nrrd'));
  const reference = await seriesIdentity(sourceFile, study);
  const bytes = dicomSeg(volume, reference, {
    seed: seriesUid,
    seriesDescription: a.series_description,
    seriesNumber: a.series_number,
  });
  const written = await parseOwn(bytes);
  return { sopInstanceUid: written.sop, seriesInstanceUid: written.series, bytes };
}

/** The source series as the SEG references it: its instances in the order of its slices. */
async function seriesIdentity(file: string, study: SourceStudy): Promise<SeriesIdentity> {
  const [read] = await readDicom(file);
  if (!read) throw Object.assign(new Error(`${file}: no DICOM series to reference`), { code: 'NO_SOURCE_SERIES' });
  const headers = await Promise.all(read.files.map((f) => readHeader(f)));
  return {
    patientId: study.patientId,
    patientName: study.patientName,
    studyInstanceUid: study.studyInstanceUid,
    studyDescription: study.studyDescription,
    frameOfReferenceUid: study.frameOfReferenceUid ?? '',
    seriesInstanceUid: study.seriesInstanceUid ?? '',
    sopClassUid: str(headers[0]!.ds, SOP_CLASS_UID) ?? '',
    sopInstanceUids: headers.map((h) => str(h.ds, SOP_INSTANCE_UID) ?? ''),
  };
}

async function parseOwn(bytes: Uint8Array): Promise<{ sop: string; series: string }> {
  const { parseBytes } = await import('../volume/dicom/data-set.js');
  const parsed = parseBytes(bytes, 'segmentation', true);
  return { sop: str(parsed.ds, SOP_INSTANCE_UID) ?? '', series: str(parsed.ds, SERIES_INSTANCE_UID) ?? '' };
}

/** A file of the source series: the file itself, or the first DICOM file of its folder by name. */
async function firstDicomFile(path: string): Promise<string> {
  if (!(await stat(path)).isDirectory()) return path;
  for (const name of (await readdir(path)).sort()) {
    const file = join(path, name);
    if (await isDicomFile(file)) return file;
  }
  throw Object.assign(new Error(`${path}: no DICOM file of the source series`), { code: 'NO_SOURCE_SERIES' });
}

async function studyFromArchive(a: StoreArgs, archives: StepArchives): Promise<SourceStudy> {
  const s = await archives.studyAttributes(a.dicomweb, a.study!);
  const text = (k: string): string => (s[k] === undefined ? '' : String(s[k]));
  return {
    patientId: text('PatientID'),
    patientName: text('PatientName'),
    patientBirthDate: text('PatientBirthDate'),
    patientSex: text('PatientSex'),
    studyInstanceUid: a.study!,
    studyDate: text('StudyDate'),
    studyTime: text('StudyTime'),
    studyId: text('StudyID'),
    accessionNumber: text('AccessionNumber'),
    referringPhysicianName: text('ReferringPhysicianName'),
    studyDescription: text('StudyDescription'),
  };
}
