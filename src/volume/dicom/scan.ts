import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { uidHash } from './uid-hash.js';
import { readHeader } from './scan-header.js';
import type { DicomKeywords } from './scan-keywords.js';
import { matchesWhere, type Where } from './where.js';

export { uidHash };

/**
 * Finding the DICOM series of a folder from their headers alone, as a cohort or a `load` of a
 * folder needs them. Files are DICOM by content, whatever their name; a file that is not DICOM
 * is passed over in silence, and so is one without pixel data (a structured report, an RT plan
 * or structure set, a DICOMDIR, an image stripped of its pixels): GDCM's image reader, which
 * MITK reads with, loads none of them.
 */

/** One series as MITK reads it: the files of one SeriesInstanceUID in one folder. */
export interface DicomSeries {
  /** A file of the series (the first by name): given to MITK, it loads the series from its folder. */
  path: string;
  /** The folder holding the series' files. */
  dir: string;
  /** How many files of the series the folder holds. */
  files: number;
  /** Those files, by name: what a load of the series reads (and what a resume should hash). */
  paths: string[];
  /** The keywords of its first file (see scan-keywords.ts); absent attributes are empty text. */
  keywords: DicomKeywords;
}

export interface DicomScan {
  /** In a stable order: by study (date, time, UID), then series number, UID and folder. */
  series: DicomSeries[];
  /** Files looked at, DICOM files among them, and DICOM files that are no series' part. */
  counts: { files: number; dicom: number; notSeries: number };
}

export interface ScanOptions {
  /** Into sub-folders too (a cohort); a `load` of a folder reads it alone, as MITK does. */
  recursive: boolean;
}

/** Scans `folder` for DICOM series. Throws only when the folder itself cannot be listed. */
export function scanDicomFolder(folder: string, options: ScanOptions): DicomScan {
  const groups = new Map<string, DicomSeries>();
  const counts = { files: 0, dicom: 0, notSeries: 0 };
  const visit = (dir: string, seen: Set<string>): void => {
    const entries = dir === folder ? readdirSync(dir, { withFileTypes: true }) : listQuietly(dir);
    // Code-unit order, not the locale's: the first file of a series is the same on every machine.
    const names = entries.map((e) => e.name).sort(byCodeUnit);
    const kinds = new Map(entries.map((e) => [e.name, e]));
    const subdirs: string[] = [];
    for (const name of names) {
      if (name.startsWith('.')) continue; // .git, .DS_Store and the like: no export hides its images
      const path = join(dir, name);
      const kind = fileKind(kinds.get(name), path);
      if (kind === 'dir') {
        if (options.recursive) subdirs.push(path);
        continue;
      }
      if (kind !== 'file') continue;
      counts.files++;
      const header = readHeader(path, (uid) => !groups.has(`${uid}\0${dir}`));
      if (!header) continue;
      counts.dicom++;
      if (!header.hasPixels || header.seriesUid === '') {
        counts.notSeries++;
        continue;
      }
      const key = `${header.seriesUid}\0${dir}`;
      const known = groups.get(key);
      if (known) {
        known.files++;
        known.paths.push(path);
      } else groups.set(key, { path, dir, files: 1, paths: [path], keywords: header.keywords ?? {} });
    }
    for (const sub of subdirs) {
      const real = realDir(sub);
      if (real === undefined || seen.has(real)) continue; // a link back up the tree
      visit(sub, new Set(seen).add(real));
    }
  };
  visit(folder, new Set([realDir(folder) ?? folder]));
  return { series: [...groups.values()].sort(bySeriesOrder), counts };
}

/**
 * The series of `folder` (not its sub-folders, as MITK reads a folder) that match `where`, for
 * a `load` given a folder; `candidates` are all of them, to list when none or several match.
 */
export function findSeries(
  folder: string,
  where: Where | undefined,
  options: ScanOptions = { recursive: false },
): { matching: DicomSeries[]; candidates: DicomSeries[] } {
  const candidates = scanDicomFolder(folder, options).series;
  return { matching: where ? candidates.filter((s) => matchesWhere(s.keywords, where)) : candidates, candidates };
}

/** A series in one line for messages: `CT 3 "ARTERIAL" (120 files) in <dir>`; names no patient. */
export function seriesLabel(s: DicomSeries, root?: string): string {
  const k = s.keywords;
  const parts = [k.Modality || 'no modality'];
  if (k.SeriesNumber !== '' && k.SeriesNumber !== undefined) parts.push(String(k.SeriesNumber));
  if (k.SeriesDescription) parts.push(`"${k.SeriesDescription}"`);
  parts.push(`(${s.files} ${s.files === 1 ? 'file' : 'files'}) in ${root ? relative(root, s.dir) || '.' : s.dir}`);
  return parts.join(' ');
}

function listQuietly(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // an unreadable sub-folder holds no series we can read, like an unreadable file
  }
}

function fileKind(entry: Dirent | undefined, path: string): 'file' | 'dir' | 'other' {
  if (entry?.isFile()) return 'file';
  if (entry?.isDirectory()) return 'dir';
  if (!entry?.isSymbolicLink()) return 'other';
  try {
    const s = statSync(path);
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
  } catch {
    return 'other'; // a dangling link
  }
}

function realDir(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ORDER = ['StudyDate', 'StudyTime', 'StudyInstanceUID', 'SeriesNumber', 'SeriesInstanceUID'] as const;

function bySeriesOrder(a: DicomSeries, b: DicomSeries): number {
  for (const k of ORDER) {
    const x = a.keywords[k] ?? '';
    const y = b.keywords[k] ?? '';
    if (x === y) continue;
    // A number before text: series without a number come after those with one.
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return byCodeUnit(x, y);
  }
  return byCodeUnit(a.dir, b.dir);
}
