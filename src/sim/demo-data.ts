import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeImageBytes, type WritableFormat } from '../volume/write-image.js';
import {
  cohortStudy,
  ctPhantom,
  ctTissues,
  labelPhantom,
  mrPhantom,
  nominalStudy,
  perfusionPhantom,
  type StudyParams,
} from './phantom.js';
import type { Volume } from '../volume/volume.js';
import { STUDY_COLUMNS, writeStudiesWorkbook, type StudyRow } from './demo-workbook.js';

export type { StudyRow };

/** The files of one study, in the order they are written. Nothing else is ever written into a study. */
export const STUDY_FILES = [
  'ct.nrrd',
  'ct.nii.gz',
  'tumour-label.nrrd',
  'mr.nii.gz',
  'perfusion-4d.nrrd',
  'perfusion-4d.nii.gz',
] as const;
export const COHORT_FILES = ['studies.csv', 'studies.json', 'studies.xlsx'] as const;
export const MAX_COHORT = 9999;
export const DEFAULT_SEED = 1;

export interface DemoDataOptions {
  /** Write this many studies in `study-001/` ... sub-directories, with a CSV and JSON index. */
  cohort?: number;
  seed?: number;
}

export interface DemoDataResult {
  studies: StudyRow[];
  /** Every file written, absolute or relative as the output directory was given. */
  files: string[];
}

/** Bad options of the demo-data generator (not a failure of the disk). */
export class DemoDataOptionError extends Error {
  override name = 'DemoDataOptionError';
}

export function validateDemoDataOptions(
  options: DemoDataOptions,
): Required<DemoDataOptions> | { seed: number; cohort: undefined } {
  const seed = options.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new DemoDataOptionError(`seed must be an integer from 0 to 4294967295, got ${String(options.seed)}`);
  }
  const { cohort } = options;
  if (cohort !== undefined && (!Number.isInteger(cohort) || cohort < 1 || cohort > MAX_COHORT)) {
    throw new DemoDataOptionError(`cohort must be an integer from 1 to ${MAX_COHORT}, got ${String(cohort)}`);
  }
  return cohort === undefined ? { seed, cohort: undefined } : { seed, cohort };
}

/** Writes one study's files into `dir` and returns their paths. */
async function writeStudy(dir: string, params: StudyParams): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const tissues = ctTissues(params);
  const ct = ctPhantom(params, tissues);
  const perfusion = perfusionPhantom(params);
  const outputs: [string, Volume, WritableFormat][] = [
    ['ct.nrrd', ct, 'nrrd'],
    ['ct.nii.gz', ct, 'nii.gz'],
    ['tumour-label.nrrd', labelPhantom(params, tissues), 'nrrd'],
    ['mr.nii.gz', mrPhantom(params), 'nii.gz'],
    ['perfusion-4d.nrrd', perfusion, 'nrrd'],
    ['perfusion-4d.nii.gz', perfusion, 'nii.gz'],
  ];
  const files: string[] = [];
  for (const [name, volume, format] of outputs) {
    const path = join(dir, name);
    await writeFile(path, writeImageBytes(volume, format));
    files.push(path);
  }
  return files;
}

function row(name: string, path: string, params: StudyParams): StudyRow {
  const [x, y, z] = params.tumour.centre;
  return { name, path, tumour_x: x, tumour_y: y, tumour_z: z, tumour_radius_mm: params.tumour.radiusMm };
}

/** `study-001`: zero-padded to 3 digits, or more when the cohort needs them. */
export function studyName(index: number, cohort: number): string {
  return `study-${String(index + 1).padStart(Math.max(3, String(cohort).length), '0')}`;
}

/**
 * Writes synthetic studies into `dir` (created if missing): one study directly in `dir`, or with
 * `cohort` N the studies `study-001` ... plus `studies.csv`, `studies.json` and `studies.xlsx`. Only the files
 * named in STUDY_FILES and COHORT_FILES are written; other files in `dir` are left alone.
 * Deterministic: the same seed gives byte-identical files (the workbook: identical cells).
 */
export async function writeDemoData(
  dir: string,
  options: DemoDataOptions = {},
  onStudy?: (row: StudyRow, files: string[]) => void,
): Promise<DemoDataResult> {
  const { seed, cohort } = validateDemoDataOptions(options);
  const existing = await stat(dir).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory())
    throw new DemoDataOptionError(`${dir} exists and is not a directory`);
  await mkdir(dir, { recursive: true });
  if (cohort === undefined) {
    const params = nominalStudy(seed);
    const files = await writeStudy(dir, params);
    const study = row('study', '.', params);
    onStudy?.(study, files);
    return { studies: [study], files };
  }
  const studies: StudyRow[] = [];
  const files: string[] = [];
  for (let i = 0; i < cohort; i++) {
    const name = studyName(i, cohort);
    const params = cohortStudy(seed, i);
    const written = await writeStudy(join(dir, name), params);
    studies.push(row(name, name, params));
    files.push(...written);
    onStudy?.(studies[i]!, written);
  }
  const columns = STUDY_COLUMNS;
  const csv = [columns.join(','), ...studies.map((s) => columns.map((c) => String(s[c])).join(','))].join('\n') + '\n';
  const csvPath = join(dir, 'studies.csv');
  const jsonPath = join(dir, 'studies.json');
  const xlsxPath = join(dir, 'studies.xlsx');
  await writeFile(csvPath, csv);
  await writeFile(jsonPath, `${JSON.stringify(studies, null, 2)}\n`);
  await writeStudiesWorkbook(xlsxPath, studies);
  files.push(csvPath, jsonPath, xlsxPath);
  return { studies, files };
}
