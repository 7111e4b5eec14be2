import { basename } from 'node:path';
import { localPath } from '../files/portable-path.js';
import type { CaseResult, Status, StepResult } from '../result/result.js';
import { openReport } from '../report/read-report.js';

/** One capture a reviewer looks at: its path from the output folder (how review.json names it). */
export interface ReviewCapture {
  path: string;
  label: string;
}

/** A case as the review shows it: only what the HTML report shows of it. */
export interface ReviewCase {
  name: string;
  status: Status;
  /**
   * The study fields the report shows (a manifest's columns; for DICOM cohorts the fields the
   * playbook reads, which is all the cohort's compiler keeps of a study), as text.
   */
  fields: Record<string, string>;
  captures: ReviewCapture[];
}

/** The cases of a finished run and the field names in the order the manifest gave them. */
export interface ReviewCases {
  outputDir: string;
  cases: ReviewCase[];
  fieldNames: string[];
  /** A capture's path from the output folder as a path of this machine. */
  file(path: string): string;
}

/**
 * The cases of the run whose report is in `outputDir`, read a case at a time so a cohort of
 * thousands holds only names, fields and capture paths.
 */
export async function readReviewCases(outputDir: string): Promise<ReviewCases> {
  const result = await openReport(outputDir);
  const cases: ReviewCase[] = [];
  const fieldNames = new Set<string>();
  for await (const c of result.cases) {
    const fields = fieldsOf(c);
    for (const k of Object.keys(fields)) fieldNames.add(k);
    cases.push({ name: c.name, status: c.status, fields, captures: capturesOf(c) });
  }
  return { outputDir, cases, fieldNames: [...fieldNames], file: (path) => localPath(outputDir, path) };
}

function fieldsOf(c: CaseResult): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.study ?? {})) fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return fields;
}

/**
 * The images a case made for people to look at: screenshots, figures, and the capture of an
 * image check (its golden and diff are for the check, not the case). One per step, in step order.
 */
function capturesOf(c: CaseResult): ReviewCapture[] {
  const captures: ReviewCapture[] = [];
  const seen = new Set<string>();
  for (const s of c.steps) {
    for (const a of s.artefacts) {
      if (!shown(s, a.kind) || !a.path.toLowerCase().endsWith('.png') || seen.has(a.path)) continue;
      seen.add(a.path);
      captures.push({ path: a.path, label: basename(a.path) });
    }
  }
  return captures;
}

function shown(s: StepResult, kind: string): boolean {
  return kind === 'screenshot' || kind === 'figure' || (s.kind === 'expect_image' && kind === 'actual');
}
