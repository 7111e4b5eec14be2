import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReviewError } from './review-error.js';

/** The shape of `review.json`; a reader of another version refuses it instead of guessing. */
export const REVIEW_VERSION = 1;
export const REVIEW_FILE = 'review.json';
export const REVIEW_CSV = 'review.csv';

export const VERDICTS = ['pass', 'fail', 'unsure'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What one reviewer said of one case, and what they saw when they said it. */
export interface CaseReview {
  /** Absent while the case is only tagged, commented or marked representative. */
  verdict?: Verdict;
  comment: string;
  tags: string[];
  representative: boolean;
  reviewer: string;
  /** ISO time of the last change. */
  time: string;
  /** SHA-256 of each capture shown, by its path from the output folder. */
  captures: Record<string, string>;
  /** Set by a merge of two reviewers who gave different verdicts: what each said. */
  disagreement?: Array<{ reviewer: string; verdict: Verdict; comment: string; time: string }>;
}

/** `review.json`: every reviewed case by its name. */
export interface ReviewFile {
  version: typeof REVIEW_VERSION;
  cases: Record<string, CaseReview>;
}

export function emptyReview(): ReviewFile {
  return { version: REVIEW_VERSION, cases: {} };
}

/**
 * The review of an output folder (`<dir>/review.json`) or a review file itself. A folder that
 * has none yet has an empty review; a file named outright must exist.
 */
export async function readReview(location: string, { mustExist = false } = {}): Promise<ReviewFile> {
  const file = location.endsWith('.json') ? location : join(location, REVIEW_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !mustExist && !location.endsWith('.json'))
      return emptyReview();
    throw new ReviewError(
      'REVIEW_NOT_FOUND',
      `${file} ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(error as Error).message})`}`,
      `give a ${REVIEW_FILE} written by \`wbplay review\`, or the output folder that holds one`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `is not valid JSON: ${(error as Error).message}`);
  }
  return checkReview(file, data);
}

/** The parsed file checked field by field, so a hand-edited review fails here and not on the page. */
function checkReview(file: string, data: unknown): ReviewFile {
  if (!isObject(data)) throw invalid(file, 'is not a JSON object');
  if (data.version !== REVIEW_VERSION) {
    if (typeof data.version === 'number')
      throw new ReviewError(
        'REVIEW_VERSION',
        `${file} has review version ${data.version}; this wbplay reads version ${REVIEW_VERSION}`,
        'open it with the wbplay version that wrote it',
      );
    throw invalid(file, 'has no "version": 1');
  }
  if (!isObject(data.cases)) throw invalid(file, 'has no "cases" object');
  const cases: Record<string, CaseReview> = {};
  for (const [name, raw] of Object.entries(data.cases)) cases[name] = checkCase(file, name, raw);
  return { version: REVIEW_VERSION, cases };
}

function checkCase(file: string, name: string, raw: unknown): CaseReview {
  const where = `case "${name}"`;
  if (!isObject(raw)) throw invalid(file, `${where} is not an object`);
  const { verdict, comment, tags, representative, reviewer, time, captures, disagreement } = raw;
  if (verdict !== undefined && !VERDICTS.includes(verdict as Verdict))
    throw invalid(file, `${where} has verdict ${JSON.stringify(verdict)}; a verdict is pass, fail or unsure`);
  if (typeof comment !== 'string') throw invalid(file, `${where} has no comment text`);
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))
    throw invalid(file, `${where} has tags that are not a list of text`);
  if (typeof representative !== 'boolean') throw invalid(file, `${where} has no representative true or false`);
  if (typeof reviewer !== 'string' || typeof time !== 'string') throw invalid(file, `${where} has no reviewer or time`);
  if (!isObject(captures) || !Object.values(captures).every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h)))
    throw invalid(file, `${where} has captures that are not SHA-256 hashes by path`);
  const review: CaseReview = {
    ...(verdict !== undefined ? { verdict: verdict as Verdict } : {}),
    comment,
    tags: tags as string[],
    representative,
    reviewer,
    time,
    captures: captures as Record<string, string>,
  };
  if (disagreement !== undefined) {
    if (!Array.isArray(disagreement)) throw invalid(file, `${where} has a disagreement that is not a list`);
    review.disagreement = disagreement as CaseReview['disagreement'];
  }
  return review;
}

function invalid(file: string, what: string): ReviewError {
  return new ReviewError(
    'REVIEW_INVALID',
    `${file} ${what}`,
    `fix or remove the file; \`wbplay review\` writes a new one`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Captures of a case whose bytes are not those the verdict was given on: changed, gone, or new
 * since. A case without a verdict is never stale.
 */
export function staleCaptures(review: CaseReview | undefined, current: Record<string, string | undefined>): string[] {
  if (!review || (review.verdict === undefined && !review.representative)) return [];
  const paths = new Set([...Object.keys(review.captures), ...Object.keys(current)]);
  return [...paths].filter((p) => review.captures[p] !== current[p]).sort();
}
