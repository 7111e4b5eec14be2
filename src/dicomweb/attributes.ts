/**
 * DICOM JSON (PS3.18 F.2) objects as the rest of wbplay reads attributes: by keyword, with the
 * same keywords and value kinds as a header scan of local files, so a cohort from an archive
 * and one from a folder carry the same case fields.
 */
import { KEYWORDS, type KeywordKind } from '../volume/dicom/scan-keywords.js';
import type { Attributes } from './types.js';

/** A DICOM JSON object: attributes by tag (8 hex digits), each with its VR and values. */
export type DicomJson = Record<string, { vr: string; Value?: unknown[] }>;

/** What searches and retrievals read beyond a header scan's keywords: counts and instance identity. */
const EXTRA: Record<string, [tag: string, kind: KeywordKind]> = {
  NumberOfStudyRelatedSeries: ['00201206', 'IS'],
  NumberOfStudyRelatedInstances: ['00201208', 'IS'],
  NumberOfSeriesRelatedInstances: ['00201209', 'IS'],
  ModalitiesInStudy: ['00080061', 'text'],
  SOPInstanceUID: ['00080018', 'text'],
  InstanceNumber: ['00200013', 'IS'],
};

/**
 * Read only when asked: wbplay never puts them in case fields, so no case name, report or error
 * message can hold them.
 */
const IDENTIFYING: Record<string, [tag: string, kind: KeywordKind]> = {
  PatientName: ['00100010', 'text'],
  PatientBirthDate: ['00100030', 'text'],
};

interface Entry {
  keyword: string;
  kind: KeywordKind;
  identifying: boolean;
}

/** Keyword by tag, upper-case `GGGGEEEE` as DICOM JSON writes it. */
const BY_TAG = new Map<string, Entry>();
for (const [keyword, def] of Object.entries(KEYWORDS))
  BY_TAG.set(def.tag.slice(1).toUpperCase(), { keyword, kind: def.kind, identifying: false });
for (const [keyword, [tag, kind]] of Object.entries(EXTRA)) BY_TAG.set(tag, { keyword, kind, identifying: false });
for (const [keyword, [tag, kind]] of Object.entries(IDENTIFYING)) BY_TAG.set(tag, { keyword, kind, identifying: true });

/** The tag (`GGGGEEEE`) of a keyword this module knows, for `includefield`; undefined otherwise. */
export function tagOf(keyword: string): string | undefined {
  const def = KEYWORDS[keyword];
  if (def !== undefined) return def.tag.slice(1).toUpperCase();
  return (EXTRA[keyword] ?? IDENTIFYING[keyword])?.[0];
}

const NUMERIC_VRS = new Set(['IS', 'DS', 'US', 'SS', 'UL', 'SL', 'UV', 'SV', 'FL', 'FD']);

export interface AttributesOptions {
  /** Also read PatientName and PatientBirthDate. */
  identifying?: boolean;
}

/**
 * The known attributes of one DICOM JSON object by keyword: PN as its Alphabetic text, IS, DS
 * and binary numbers as numbers, multi-values joined with `\`. Sequences, bulk data and empty
 * attributes are left out; so are PatientName and PatientBirthDate unless asked for.
 */
export function attributesOf(json: DicomJson, options: AttributesOptions = {}): Attributes {
  const out: Attributes = {};
  for (const [tag, element] of Object.entries(json)) {
    const entry = BY_TAG.get(tag.toUpperCase());
    if (entry === undefined || (entry.identifying && options.identifying !== true)) continue;
    if (typeof element !== 'object' || element === null || !Array.isArray(element.Value)) continue;
    const numeric = entry.kind !== 'text' || NUMERIC_VRS.has(element.vr);
    const values = element.Value.map((v) => valueText(v, element.vr)).filter((v): v is string => v !== undefined);
    if (values.length === 0) continue;
    const single = values.length === 1 ? Number(values[0]) : NaN;
    out[entry.keyword] = numeric && values[0]!.trim() !== '' && Number.isFinite(single) ? single : values.join('\\');
  }
  return out;
}

/** One value as text: a PN's Alphabetic group, a number, a string; undefined for what has none. */
function valueText(value: unknown, vr: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (vr === 'PN') {
    if (typeof value === 'object') {
      const alphabetic = (value as { Alphabetic?: unknown }).Alphabetic;
      return typeof alphabetic === 'string' ? alphabetic : undefined;
    }
    return typeof value === 'string' ? value : undefined;
  }
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.trim();
  return undefined;
}

/** The first value of a tag as a string (UIDs of a search result), undefined when absent. */
export function firstString(json: DicomJson, tag: string): string | undefined {
  const v = json[tag]?.Value?.[0] ?? json[tag.toLowerCase()]?.Value?.[0];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}
