import { paintStatus, type Palette } from './colors.js';
import type {
  CaseResult,
  ErrorInfo,
  ImageAssertion,
  RunResult,
  SourceSpan,
  StepInfo,
  StepResult,
  Summary,
} from '../result/result.js';

/**
 * The words every text reporter shares (line, tasklist, JUnit's step log, the HTML report's
 * titles), so a duration or a location reads the same wherever a person meets it.
 */

/** `12 ms`, `4.2 s`, `3 m 05 s`, `1 h 02 m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} m ${pad(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${pad(Math.floor(seconds / 60) % 60)} m`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `playbooks/a.yaml:14:5`. */
export function formatSpan(span: SourceSpan): string {
  return `${span.file}:${span.line}:${span.col}`;
}

/** `step 3 screenshot axial to out/a.png`. */
/** The summary's line about obsolete goldens, if there are any. */
export function unusedGoldensLine(result: RunResult): string | undefined {
  const unused = result.unusedGoldens ?? [];
  if (unused.length === 0) return undefined;
  return `${unused.length} golden${unused.length === 1 ? '' : 's'} no check used (obsolete? delete them): ${unused.join(', ')}`;
}

export function stepLabel(step: StepInfo): string {
  return `step ${step.index} ${step.kind}${step.description ? ` ${step.description}` : ''}`;
}

/** `IMAGE_MISMATCH: 120 pixels differ (HTTP 503)`: the code first, since scripts and people grep for it. */
export function formatError(error: ErrorInfo): string {
  return `${error.code}: ${error.message}${error.status !== undefined ? ` (HTTP ${error.status})` : ''}`;
}

/** The measured numbers of an image assertion against its tolerance, in one line. */
export function formatImage(image: ImageAssertion): string {
  const parts: string[] = [];
  if (image.outcome === 'size-mismatch' && image.actualSize && image.expectedSize) {
    parts.push(
      `size ${image.actualSize.width}×${image.actualSize.height}, golden ${image.expectedSize.width}×${image.expectedSize.height}`,
    );
  } else if (image.diffPixels !== undefined) {
    const ratio = image.diffRatio !== undefined ? ` (${formatPercent(image.diffRatio)})` : '';
    const total = image.totalPixels !== undefined ? ` of ${image.totalPixels}` : '';
    parts.push(`${image.diffPixels}${total} pixels differ${ratio}`);
  }
  const t = image.tolerance;
  if (t) {
    const limits = [`threshold ${t.threshold}`];
    if (t.maxDiffPixels !== undefined) limits.push(`max ${t.maxDiffPixels} px`);
    if (t.maxDiffRatio !== undefined) limits.push(`max ${formatPercent(t.maxDiffRatio)}`);
    parts.push(`tolerance ${limits.join(', ')}`);
  }
  return parts.join('; ');
}

export function formatPercent(ratio: number): string {
  const pct = ratio * 100;
  if (pct === 0) return '0%';
  if (pct < 0.01) return '<0.01%';
  return `${Number(pct.toFixed(pct < 1 ? 2 : 1))}%`;
}

/** Why a step did not pass, in one line: the error, else the image verdict, else the skip reason. */
export function stepProblem(step: StepResult): string | undefined {
  if (step.status === 'skipped') return step.skippedReason;
  if (step.status === 'passed') return undefined;
  if (step.error) return formatError(step.error);
  if (step.image) return step.image.message;
  return step.status;
}

/** The first step that failed or erred: the one a person looks at first. */
export function firstProblem(c: CaseResult): StepResult | undefined {
  return c.steps.find((s) => s.status === 'failed' || s.status === 'error');
}

/**
 * `24 cases: 20 passed, 2 failed, 1 error, 1 skipped`; a resumed run says how many of its
 * results are those of an earlier run: `12 passed (8 up to date)`.
 */
export function formatSummary(summary: Summary): string {
  const noun = summary.total === 1 ? 'case' : 'cases';
  const counts = [
    `${summary.passed} passed${summary.upToDate ? ` (${summary.upToDate} up to date)` : ''}`,
    `${summary.failed} failed`,
    `${summary.error} error${summary.error === 1 ? '' : 's'}`,
    `${summary.skipped} skipped`,
  ];
  return `${summary.total} ${noun}: ${counts.join(', ')}`;
}

/** `case › step 4 expect_image …: IMAGE_DIFFERENT: … (file:14:5)`: what went wrong in a case, in one line. */
export function caseProblem(c: CaseResult): string {
  const step = firstProblem(c);
  if (!step) return `${c.name}: ${c.status}`;
  return `${c.name} › ${stepLabel(step)}: ${stepProblem(step) ?? step.status} (${formatSpan(step.span)})`;
}

/**
 * The cases that need attention, each with every check that failed and where it is, for the
 * end of a log: a case name, then its failed steps indented under it. A fix for the first
 * failure of a case is rarely the fix for all of them, so none is left out up to the limits.
 */
export async function problemLines(result: RunResult, limit = 20, stepsPerCase = 12): Promise<string[]> {
  const bad = [...result.cases.summaries.entries()]
    .filter(([, c]) => c.status === 'failed' || c.status === 'error')
    .map(([i]) => i);
  const lines: string[] = [];
  // Only the cases shown are read: a summary says which ones failed.
  for await (const c of result.cases.pick(bad.slice(0, limit))) {
    const failed = c.steps.filter((s) => s.status === 'failed' || s.status === 'error');
    if (failed.length === 0) {
      lines.push(`${c.name}: ${c.status}`);
      continue;
    }
    const failures = failed.filter((s) => s.status === 'failed').length;
    const errors = failed.length - failures;
    const counts = [
      failures > 0 ? `${failures} failed step${failures === 1 ? '' : 's'}` : '',
      errors > 0 ? `${errors} step${errors === 1 ? '' : 's'} in error` : '',
    ].filter((t) => t !== '');
    lines.push(`${c.name}: ${counts.join(', ')}`);
    for (const step of failed.slice(0, stepsPerCase))
      lines.push(`  step ${step.index} ${step.kind}: ${stepProblem(step) ?? step.status} (${formatSpan(step.span)})`);
    if (failed.length > stepsPerCase) lines.push(`  … and ${failed.length - stepsPerCase} more (see the report)`);
  }
  if (bad.length > limit) lines.push(`… and ${bad.length - limit} more cases (see the report)`);
  return lines;
}

/**
 * The lines that explain a failed step, each figure once: the error, then the image verdict
 * and its numbers only where the error does not already say them.
 */
export function failureDetails(step: Pick<StepResult, 'error' | 'image'>): string[] {
  const details: string[] = [];
  const said = step.error ? formatError(step.error) : '';
  if (step.error) details.push(said);
  if (step.image) {
    if (!said.includes(step.image.message)) details.push(step.image.message);
    const numbers = formatImage(step.image);
    const told = details.join('\n');
    const figures = [
      step.image.diffPixels !== undefined ? `${step.image.diffPixels} ` : undefined,
      step.image.actualSize ? `${step.image.actualSize.width}×${step.image.actualSize.height}` : undefined,
    ].filter((f): f is string => f !== undefined);
    if (numbers && !figures.some((f) => told.includes(f))) details.push(numbers);
  }
  return details;
}

/** Control characters would move a terminal's cursor or end a line early; a name is shown, never obeyed. */
export function printable(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The last line of a run: `PASSED 24 cases: … in 3.1 s`, or `INTERRUPTED by SIGTERM 24 cases: …`
 * when a signal stopped it (its skipped cases are the ones it did not reach).
 */
export function verdictLine(palette: Palette, result: RunResult): string {
  const verdict = paintStatus(palette, result.status, result.status.toUpperCase());
  const by = result.status === 'interrupted' && result.signal ? ` by ${result.signal}` : '';
  return `${verdict}${by} ${formatSummary(result.summary)} in ${formatDuration(result.durationMs)}`;
}
