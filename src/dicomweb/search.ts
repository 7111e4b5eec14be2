import type { Where, WhereValue } from '../volume/dicom/where.js';
import { CASE_KEYWORDS, KEYWORDS } from '../volume/dicom/scan-keywords.js';
import type { Attributes, QidoQuery } from './types.js';

/**
 * A cohort's search of an archive (QIDO-RS): its studies first, then the series of each. The
 * `where` keywords QIDO-RS can match are sent along to narrow the answer; the caller checks
 * every condition again on what comes back, since archives differ in how they match (case,
 * wildcards, multi-valued attributes).
 */

/** What a search needs of an archive: two paged QIDO-RS queries. */
export interface Searchable {
  searchStudies(query: QidoQuery, includeFields?: string[]): Promise<Attributes[]>;
  searchSeries(study: string, query: QidoQuery, includeFields?: string[]): Promise<Attributes[]>;
}

/** A series found: the case keywords and the instance count its completeness is judged by. */
export interface FoundSeries {
  keywords: Record<string, string | number>;
  instances: number;
}

/** Study-level attributes QIDO-RS matches; `Modality` asks for studies holding that modality. */
const STUDY_KEYS: Readonly<Record<string, string>> = {
  PatientID: 'PatientID',
  StudyInstanceUID: 'StudyInstanceUID',
  StudyDate: 'StudyDate',
  AccessionNumber: 'AccessionNumber',
  StudyDescription: 'StudyDescription',
  StudyID: 'StudyID',
  Modality: 'ModalitiesInStudy',
};

/** Series-level attributes QIDO-RS matches. */
const SERIES_KEYS = ['SeriesInstanceUID', 'SeriesNumber', 'Modality', 'SeriesDescription'] as const;

/** Attributes to ask for beyond a level's defaults: the case keywords that are not among them. */
const STUDY_FIELDS = ['00081030', '00080050', '00100020', '00080020'];
const SERIES_FIELDS = ['0008103E', '00180015', '00280010', '00280011', '00201209'];

/** Text attributes (LO, SH) on which QIDO-RS allows wildcards; `?` is sent as `*` (Orthanc takes `%3F` literally). */
const WILDCARDS = new Set(['PatientID', 'AccessionNumber', 'StudyDescription', 'SeriesDescription', 'StudyID']);

/**
 * One value QIDO-RS can match as `where` means it: a single text or number. A list (any of)
 * would need one search per value; it is matched here instead, as is text with a backslash.
 *
 * Only letters, digits, `.`, `-`, `_` and `*` travel as they are: Orthanc 1.10 does not decode
 * a query value (`ABDOMEN%20ARTERIAL` and `ABDOMEN+ARTERIAL` find nothing, `ABDOMEN*ARTERIAL`
 * finds the series). Any other character is sent as `*` where QIDO-RS allows wildcards, which
 * widens the answer that is narrowed here anyway; elsewhere such a value is not sent at all.
 */
function queryValue(key: string, value: WhereValue): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? queryValue(key, value[0] as string | number) : undefined;
  const text = String(value).replaceAll('?', '*');
  if (text === '' || text.includes('\\')) return undefined;
  if (/^[A-Za-z0-9._*-]+$/.test(text)) return text;
  return WILDCARDS.has(key) ? text.replace(/[^A-Za-z0-9._*-]+/g, '*') : undefined;
}

/** The query of a level: every `where` keyword that level's QIDO-RS matches. */
export function studyQuery(where: Where | undefined): QidoQuery {
  const query: QidoQuery = {};
  for (const [key, value] of Object.entries(where ?? {})) {
    const param = STUDY_KEYS[key];
    const v = queryValue(key, value);
    if (param !== undefined && v !== undefined) query[param] = v;
  }
  return query;
}

export function seriesQuery(where: Where | undefined): QidoQuery {
  const query: QidoQuery = {};
  for (const key of SERIES_KEYS) {
    const value = where?.[key];
    const v = value === undefined ? undefined : queryValue(key, value);
    if (v !== undefined) query[key] = v;
  }
  return query;
}

/**
 * Every series of the studies that match, with the case keywords filled from the study and
 * series answers. `perStudy`: all series of a matching study are wanted (a study's case
 * holds all of them), so series-level conditions are not sent.
 */
export async function searchArchive(
  archive: Searchable,
  where: Where | undefined,
  perStudy: boolean,
): Promise<FoundSeries[]> {
  const studies = await archive.searchStudies(studyQuery(where), STUDY_FIELDS);
  const found: FoundSeries[] = [];
  const series = perStudy ? {} : seriesQuery(where);
  // Keywords `where` checks beyond the case's own are asked for too, so they can be checked.
  const extra = Object.keys(where ?? {}).filter((k) => !(CASE_KEYWORDS as readonly string[]).includes(k));
  const fields = [
    ...SERIES_FIELDS,
    ...extra.flatMap((k) => (KEYWORDS[k] ? [KEYWORDS[k].tag.slice(1).toUpperCase()] : [])),
  ];
  for (const study of studies) {
    const uid = study.StudyInstanceUID;
    if (uid === undefined || uid === '') continue;
    for (const s of await archive.searchSeries(String(uid), series, fields)) {
      const keywords: Record<string, string | number> = {};
      for (const k of [...CASE_KEYWORDS, ...extra]) keywords[k] = s[k] ?? study[k] ?? '';
      keywords.StudyInstanceUID = String(uid);
      found.push({ keywords, instances: Number(s.NumberOfSeriesRelatedInstances ?? 0) });
    }
  }
  return found;
}
