import type { DiagnosticCode } from '../diagnostics/diagnostic.js';
import type { DicomKeywords } from '../volume/dicom/scan-keywords.js';
import type { Where } from '../volume/dicom/where.js';

/**
 * The vocabulary of `foreach` that its sources share: a study, the raw source as the playbook
 * writes it, the context a source reports through, and what an archive's search gives. Kept
 * apart from the sources themselves so that each imports it and none imports another.
 */

/** With `dicom` or `dicomweb`: one case per series or per study. */
export type Per = 'series' | 'study';

/** A series a case needs from a DICOMweb archive, and the cache folder it is retrieved into. */
export interface RetrieveRef {
  /** The archive's DICOMweb root. */
  url: string;
  study: string;
  series: string;
  /** NumberOfSeriesRelatedInstances as the search found it: the series is complete at this count. */
  instances: number;
  dir: string;
}

export interface ManifestOptions {
  delimiter?: string;
  sheet?: string;
}

/** A search a playbook needs: the cases of one archive. */
export interface ArchiveSearch {
  url: string;
  per: Per;
  where?: Where;
}

/** One series as a search found it: the keywords a scan reads, and its instance count. */
export interface ArchiveSeries {
  keywords: DicomKeywords;
  instances: number;
}

/** Searches already made, and where their series are cached. */
export interface ArchiveResults {
  cacheRoot: string;
  found(search: ArchiveSearch): readonly ArchiveSeries[] | undefined;
}

export interface Study {
  name: string;
  fields: Record<string, unknown>;
  /** Data files the study's case reads beyond those its steps name (a DICOM series' other files), for resume hashes. */
  inputs?: string[];
  /** Series to retrieve from an archive before the case runs. */
  retrieve?: RetrieveRef[];
}

export const FOREACH_SOURCES = ['list', 'glob', 'csv', 'xlsx', 'json', 'dicom', 'dicomweb'] as const;
export type ForeachSource = (typeof FOREACH_SOURCES)[number];

export interface ForeachRaw extends ManifestOptions {
  list?: (string | Record<string, unknown>)[];
  glob?: string;
  csv?: string;
  xlsx?: string;
  json?: string;
  dicom?: string;
  dicomweb?: string;
  per?: Per;
  where?: Where;
  as?: string;
}

export interface ForeachContext {
  /** The playbook's folder: relative sources and paths resolve against it. */
  dir: string;
  checkFiles: boolean;
  error(code: DiagnosticCode, path: (string | number)[], message: string, hint?: string): void;
  /** A problem inside a manifest file, at its line; its text, when it has one, to quote the line. */
  fileError(
    code: DiagnosticCode,
    at: { file: string; line: number; col: number; text?: string },
    message: string,
    hint?: string,
  ): void;
  /** Searches of archives already made (a `dicomweb` source). */
  archives?: ArchiveResults;
  /** A `dicomweb` source whose search is still to be made: the compile is run again with its answer. */
  needSearch?(search: ArchiveSearch): void;
}

export interface Foreach {
  as: string;
  source: ForeachSource;
  /** The glob or manifest file, absolute. */
  from?: string;
  /** Undefined when the source cannot be read now and files are not checked. */
  studies: Study[] | undefined;
  /** A DICOM source's case: a series or a study. */
  per?: Per;
}
