import type { ReviewCase } from './review-cases.js';
import type { ReviewFile } from '../result/review-file.js';

/** The review's own columns; the manifest's follow them. */
export const REVIEW_COLUMNS = ['case', 'verdict', 'comment', 'tags', 'representative', 'reviewer', 'time'] as const;

/**
 * A cell as a spreadsheet should show it and never run it. A text that starts with `=`, `+`,
 * `-` or `@` (or a tab or carriage return, which some programs skip before them) would be read
 * as a formula, so it is prefixed with `'`, which Excel and LibreOffice take as "this is text";
 * a plain number is left alone, since a negative one is no formula. Quoted as RFC 4180 asks when
 * it holds a comma, quote or line break.
 */
export function csvCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) && !/^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * review.csv: a row for every case of the run (those not reviewed yet with an empty verdict),
 * the review's columns, then the manifest's. UTF-8 with a byte order mark, which Excel needs
 * to read anything but ASCII right, and CRLF line ends, as RFC 4180 has them.
 */
export function reviewCsv(review: ReviewFile, cases: readonly ReviewCase[], fieldNames: readonly string[]): string {
  const own = new Set<string>(REVIEW_COLUMNS);
  // A manifest column named like one of the review's keeps its value under a name of its own.
  const fieldHeads = fieldNames.map((f) => (own.has(f) ? `field ${f}` : f));
  const lines = [[...REVIEW_COLUMNS, ...fieldHeads].map(csvCell).join(',')];
  for (const c of cases) {
    const r = review.cases[c.name];
    const cells = [
      c.name,
      r?.verdict ?? '',
      r?.comment ?? '',
      (r?.tags ?? []).join('; '),
      r ? (r.representative ? 'yes' : 'no') : '',
      r?.reviewer ?? '',
      r?.time ?? '',
      ...fieldNames.map((f) => c.fields[f] ?? ''),
    ];
    lines.push(cells.map(csvCell).join(','));
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
