/**
 * The demo study as a DICOM export, and a small tree of DICOM studies as a PACS export or a
 * scanner leaves them: several patients, studies and series, two series mixed in one folder,
 * file names with and without `.dcm`, names that do not sort in slice order. Built from the
 * same phantom as the NRRD and NIfTI files, so the DICOM CT lines up with `ct.nrrd` voxel for
 * voxel. Deterministic: the same seed writes the same bytes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dicomSeries, seriesIdentity, type DicomSeriesOptions } from '../volume/dicom/write.js';
import { dicomSeg } from '../volume/dicom/write-seg.js';
import {
  cohortStudy,
  ctPhantom,
  ctTissues,
  labelPhantom,
  mrPhantom,
  nominalStudy,
  type StudyParams,
} from './phantom.js';
import type { Volume } from '../volume/volume.js';

/** Where the demo study's DICOM export goes, relative to the output directory. */
export const DICOM_EXPORT_DIR = 'dicom';
export const DICOM_CT_DIR = 'dicom/ct';
export const DICOM_SEG_FILE = 'dicom/tumour-seg.dcm';
export const DICOM_TREE_DIR = 'dicom-studies';

/** CT stored as most scanners store it: unsigned 16 bits with an intercept of -1024. */
const CT_RESCALE = { slope: 1, intercept: -1024 };
const SOFT_TISSUE_WINDOW = { center: 40, width: 400 };
const MR_WINDOW = { center: 600, width: 1400 };

export interface DemoSeries {
  /** Folder holding the series' files, relative to the output directory. */
  dir: string;
  patientId: string;
  studyDescription: string;
  seriesDescription: string;
  modality: string;
  seriesNumber: number;
  files: number;
}

export interface DemoDicomResult {
  ct: { dir: string; slices: number };
  seg: string;
  tree: { dir: string; patients: number; studies: number; series: DemoSeries[] };
  /** Every file written, joined to the output directory as it was given. */
  files: string[];
}

interface TreeSeries {
  dir: string;
  params: StudyParams;
  patient: [id: string, name: string];
  study: string;
  /** Date of the study; it also seeds the study's UIDs. */
  date: string;
  series: string;
  number: number;
  modality: 'CT' | 'MR';
  naming: NonNullable<DicomSeriesOptions['naming']>;
}

/**
 * The tree: 3 patients, 4 studies, 5 series; DEMO001's two CT phases share one folder. Folder
 * names are neutral (no patient ID or date), so a report that shows a path shows no one.
 */
function treeSeries(seed: number): TreeSeries[] {
  const one = cohortStudy(seed, 0);
  const two = cohortStudy(seed, 1);
  const three = cohortStudy(seed, 2);
  const venous: StudyParams = {
    ...one,
    tumourHu: one.tumourHu - 25,
    bodyHu: one.bodyHu + 15,
    noiseSeed: one.noiseSeed + 7,
  };
  const a: [string, string] = ['DEMO001', 'Demo^Patient One'];
  const b: [string, string] = ['DEMO002', 'Demo^Patient Two'];
  const c: [string, string] = ['DEMO003', 'Demo^Patient Three'];
  return [
    {
      dir: 'P1/ST1',
      params: one,
      patient: a,
      study: 'CT ABDOMEN',
      date: '20240105',
      series: 'ABDOMEN ARTERIAL',
      number: 2,
      modality: 'CT',
      naming: 'shuffled',
    },
    {
      dir: 'P1/ST1',
      params: venous,
      patient: a,
      study: 'CT ABDOMEN',
      date: '20240105',
      series: 'ABDOMEN VENOUS',
      number: 3,
      modality: 'CT',
      naming: 'shuffled',
    },
    {
      dir: 'P2/ST1/SE2',
      params: two,
      patient: b,
      study: 'CT ABDOMEN',
      date: '20240212',
      series: 'ABDOMEN ARTERIAL',
      number: 2,
      modality: 'CT',
      naming: 'instance',
    },
    {
      dir: 'P2/ST2/SE1',
      params: two,
      patient: b,
      study: 'MR ABDOMEN',
      date: '20240212',
      series: 'T1 AXIAL',
      number: 1,
      modality: 'MR',
      naming: 'bare',
    },
    {
      dir: 'P3/ST1',
      params: three,
      patient: c,
      study: 'CT CHEST ABDOMEN',
      date: '20240320',
      series: 'PORTAL VENOUS',
      number: 4,
      modality: 'CT',
      naming: 'bare',
    },
  ];
}

async function writeFiles(dir: string, files: { name: string; bytes: Uint8Array }[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (const f of files) {
    const path = join(dir, f.name);
    await writeFile(path, f.bytes);
    paths.push(path);
  }
  return paths;
}

/**
 * Writes `dicom/` (the demo study's CT as a series with a soft-tissue window, its tumour label
 * image as DICOM SEG) and `dicom-studies/` (the multi-study tree) into `dir`.
 */
export async function writeDemoDicom(dir: string, seed = 1): Promise<DemoDicomResult> {
  const params = nominalStudy(seed);
  const tissues = ctTissues(params);
  const ct = ctPhantom(params, tissues);
  const ctOptions: DicomSeriesOptions = {
    seed: `wbplay demo ${seed}`,
    patientId: 'DEMO000',
    patientName: 'Demo^Study',
    studyDescription: 'Demo study',
    seriesDescription: 'CT',
    modality: 'CT',
    seriesNumber: 1,
    rescale: CT_RESCALE,
    window: SOFT_TISSUE_WINDOW,
  };
  const files = await writeFiles(join(dir, DICOM_CT_DIR), dicomSeries(ct, ctOptions));
  const segPath = join(dir, DICOM_SEG_FILE);
  await writeFile(
    segPath,
    dicomSeg(labelPhantom(params, tissues), seriesIdentity(ct, ctOptions), { seriesDescription: 'Tumour' }),
  );
  files.push(segPath);

  const series: DemoSeries[] = [];
  for (const s of treeSeries(seed)) {
    const volume: Volume = s.modality === 'CT' ? ctPhantom(s.params) : mrPhantom(s.params);
    const written = dicomSeries(volume, {
      seed: `wbplay demo ${seed} ${s.patient[0]} ${s.date} ${s.study}`,
      patientId: s.patient[0],
      patientName: s.patient[1],
      studyDescription: s.study,
      seriesDescription: s.series,
      modality: s.modality,
      seriesNumber: s.number,
      naming: s.naming,
      ...(s.modality === 'CT' ? { rescale: CT_RESCALE, window: SOFT_TISSUE_WINDOW } : { window: MR_WINDOW }),
      tags: { StudyDate: s.date, SeriesDate: s.date, AccessionNumber: `ACC${s.date}`, BodyPartExamined: 'ABDOMEN' },
    });
    files.push(...(await writeFiles(join(dir, DICOM_TREE_DIR, s.dir), written)));
    series.push({
      dir: join(DICOM_TREE_DIR, s.dir),
      patientId: s.patient[0],
      studyDescription: s.study,
      seriesDescription: s.series,
      modality: s.modality,
      seriesNumber: s.number,
      files: written.length,
    });
  }
  const patients = new Set(series.map((s) => s.patientId)).size;
  const studies = new Set(series.map((s) => `${s.patientId} ${s.studyDescription}`)).size;
  return {
    ct: { dir: join(dir, DICOM_CT_DIR), slices: ct.dims[2] },
    seg: segPath,
    tree: { dir: join(dir, DICOM_TREE_DIR), patients, studies, series },
    files,
  };
}
