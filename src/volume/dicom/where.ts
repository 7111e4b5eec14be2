import { KEYWORDS, type DicomKeywords } from './scan-keywords.js';

/**
 * `where:` picks series by DICOM keyword: `{ Modality: CT, SeriesDescription: "*ARTERIAL*" }`.
 * Every keyword given must match (and), a list matches when any of its values does (or).
 *
 * - A number compares as a number: `SeriesNumber: 3` matches `3`, `03` and `3.0`.
 * - Text compares exactly, and case matters, as DICOM's own query matching (C-FIND) compares:
 *   code strings such as `CT` are upper case by definition, and descriptions mean what their
 *   scanner wrote. `*` (any run of characters) and `?` (one character) make it a glob, the two
 *   wildcards of C-FIND; `*` alone also matches an absent attribute.
 * - A multi-valued attribute (`ImageType` `ORIGINAL\PRIMARY\AXIAL`) matches when its whole
 *   text or any one of its values does, so `ImageType: LOCALIZER` finds the localizers.
 * - A date keyword (StudyDate, SeriesDate) takes a range as DICOM's query matching writes it:
 *   `20240101-20241231`, `20240101-` (from) or `-20241231` (until), both ends included.
 */

export type WhereScalar = string | number;
export type WhereValue = WhereScalar | readonly WhereScalar[];
export type Where = Readonly<Record<string, WhereValue>>;

/** A problem with a `where`: at a keyword (and an item of its list), with what is wrong. */
/** The JSON Schema of a `where` (its description aside), for `foreach: dicom` and `load` alike. */
export const WHERE_SCHEMA = {
  type: 'object',
  minProperties: 1,
  additionalProperties: {
    anyOf: [{ type: ['string', 'number'] }, { type: 'array', minItems: 1, items: { type: ['string', 'number'] } }],
  },
} as const;

export interface WhereProblem {
  /** An unknown keyword, or a value of the wrong kind (which a JSON schema can catch too). */
  kind: 'keyword' | 'value';
  key: string;
  index?: number;
  message: string;
}

/** Unknown keywords and values that are neither text, a number nor a list of them. */
export function checkWhere(where: Readonly<Record<string, unknown>>): WhereProblem[] {
  const problems: WhereProblem[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (!Object.prototype.hasOwnProperty.call(KEYWORDS, key)) {
      problems.push({ kind: 'keyword', key, message: `\`${key}\` is not a DICOM keyword \`where\` can select on` });
      continue;
    }
    const items = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length === 0)
      problems.push({ kind: 'value', key, message: `\`${key}\` has an empty list, which matches nothing` });
    for (const [i, item] of items.entries()) {
      if (typeof item === 'string' || (typeof item === 'number' && Number.isFinite(item))) continue;
      problems.push({
        kind: 'value',
        key,
        ...(Array.isArray(value) ? { index: i } : {}),
        message: `\`${key}\` takes text, a number or a list of them, not ${describe(item)}`,
      });
    }
  }
  return problems;
}

/** Whether a series' keywords match every keyword of `where`. */
export function matchesWhere(keywords: Readonly<DicomKeywords>, where: Where): boolean {
  for (const [key, wanted] of Object.entries(where)) {
    const have = keywords[key] ?? '';
    const options = Array.isArray(wanted) ? (wanted as readonly WhereScalar[]) : [wanted as WhereScalar];
    if (!options.some((w) => matchesOne(have, w, key))) return false;
  }
  return true;
}

/** Keywords of VR DA, which match a range. */
const DATES = new Set(['StudyDate', 'SeriesDate']);
const DATE_RANGE = /^(\d{8})?-(\d{8})?$/;

function matchesOne(have: string | number, wanted: WhereScalar, key = ''): boolean {
  const range = typeof wanted === 'string' && DATES.has(key) ? DATE_RANGE.exec(wanted) : null;
  if (range && (range[1] || range[2])) {
    const date = String(have);
    return /^\d{8}$/.test(date) && (!range[1] || date >= range[1]) && (!range[2] || date <= range[2]);
  }
  const values = typeof have === 'string' && have.includes('\\') ? [have, ...have.split('\\')] : [have];
  if (typeof wanted === 'number') return values.some((v) => v !== '' && Number(v) === wanted);
  if (isGlob(wanted)) {
    const re = globRegExp(wanted);
    return values.some((v) => re.test(String(v)));
  }
  const asNumber = typeof have === 'number' && wanted.trim() !== '' ? Number(wanted) : NaN;
  return values.some((v) => String(v) === wanted || (Number.isFinite(asNumber) && v === asNumber));
}

function isGlob(text: string): boolean {
  return text.includes('*') || text.includes('?');
}

const compiled = new Map<string, RegExp>();

function globRegExp(glob: string): RegExp {
  let re = compiled.get(glob);
  if (!re) {
    const body = [...glob]
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`, 'su');
    compiled.set(glob, re);
  }
  return re;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list in a list';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}

/** `where` as one line for messages: `Modality: CT, SeriesNumber: [3, 4]`. */
export function whereText(where: Where): string {
  return Object.entries(where)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${(v as WhereScalar[]).join(', ')}]` : String(v)}`)
    .join(', ');
}
