import type { Artefact, CaseResult, Status, StepResult } from '../result/result.js';
import { artefactUrl, esc } from './html-escape.js';
import { isFailedImageCheck } from './hints.js';
import { firstProblem, formatDuration, formatError, formatImage, formatSpan, stepProblem } from './report-text.js';

/** The markup of one case and its steps; every value from a playbook or server goes through `esc`. */

export interface CaseMarkupContext {
  outputDir?: string;
  /** Collects each step's arguments under the key its arguments button names. */
  args: Record<string, { args: unknown; resolvedArgs?: unknown }>;
  /** Served for review: the checks (`<case index>.<step index>`) that may be accepted. */
  reviewable?: ReadonlySet<string>;
  /** The hint of a failed image check as a reader of this page acts on it. */
  imageHint?: string;
}

const ICONS: Record<Status, string> = { passed: '✔', failed: '✖', error: '!', skipped: '–' };

/** A case's study fields as the report shows them: `key=value`, two spaces apart. */
function studyText(c: CaseResult): string {
  return c.study
    ? Object.entries(c.study)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join('  ')
    : '';
}

/** What the report's search box matches a case against: name, id, playbook and study, in lower case. */
export function caseSearchText(c: CaseResult, study = studyText(c)): string {
  return [c.name, c.id, c.playbook, study].join(' ').toLowerCase();
}

export function caseMarkup(c: CaseResult, position: number, ctx: CaseMarkupContext, index = position): string {
  const problem = firstProblem(c);
  const open = c.status === 'failed' || c.status === 'error' ? ' open' : '';
  const study = studyText(c);
  const search = caseSearchText(c, study);
  const parts = [
    `<details class="case ${c.status}" data-status="${c.status}" data-search="${esc(search)}" id="case-${position}"${open}>`,
    '<summary>',
    `<span class="pill ${c.status}">${c.status}</span>`,
    `<span class="case-name">${esc(c.name)}</span>`,
    `<span class="where">${esc(c.playbook)}${c.workbench ? ` · ${esc(c.workbench)}` : ''}</span>`,
    study ? `<span class="study">${esc(study)}</span>` : '',
    // A result an earlier run made says so, and when: its images are that run's.
    ...(c.upToDate
      ? [
          `<span class="up-to-date" title="inputs and outputs unchanged since the run that made this result">up to date since ${esc(c.upToDate.finishedAt)}</span>`,
        ]
      : []),
    `<span class="dur">${formatDuration(c.durationMs)}</span>`,
    '</summary>',
  ];
  if (problem) {
    parts.push(
      `<p class="case-problem">Step ${problem.index} <b>${esc(problem.kind)}</b> at <span class="mono">${esc(formatSpan(problem.span))}</span>: ${esc(stepProblem(problem) ?? problem.status)}</p>`,
    );
    if (c.trace)
      parts.push(
        `<p class="case-trace"><a href="${esc(artefactUrl(c.trace, ctx.outputDir))}">HTTP trace of this case</a> (one exchange per line)</p>`,
      );
  }
  const accepts = ctx.reviewable ? c.steps.map((s) => `${index}.${s.index}`).filter((k) => ctx.reviewable!.has(k)) : [];
  if (accepts.length > 1)
    parts.push(
      `<p class="review"><button type="button" class="accept accept-case" data-checks="${esc(accepts.join(' '))}">Accept all ${accepts.length} failing images of this case</button></p>`,
    );
  parts.push('<ol class="steps">');
  for (const step of c.steps) parts.push(stepMarkup(step, `${position}.${step.index}`, ctx, `${index}.${step.index}`));
  parts.push('</ol>', '</details>');
  return parts.join('\n');
}

/** A step's arguments as its arguments button shows them: as planned, and as run. */
export function stepArgs(step: StepResult): { args: unknown; resolvedArgs?: unknown } {
  return step.resolvedArgs === undefined ? { args: step.args } : { args: step.args, resolvedArgs: step.resolvedArgs };
}

function stepMarkup(step: StepResult, key: string, ctx: CaseMarkupContext, check: string): string {
  ctx.args[key] = stepArgs(step);
  const retries = step.attempts.length > 1 ? `<span class="retries">${step.attempts.length} attempts</span>` : '';
  const head = [
    '<div class="step-head">',
    `<span class="icon" title="${step.status}">${ICONS[step.status]}</span>`,
    `<span class="idx">${step.index}</span>`,
    `<span class="kind">${esc(step.kind)}</span>`,
    `<span class="desc">${esc(step.description)}</span>`,
    `<span class="loc">${esc(formatSpan(step.span))}</span>`,
    `<span class="time">${step.status === 'skipped' ? 'skipped' : formatDuration(step.durationMs)}${retries}</span>`,
    `<button type="button" class="args-toggle" data-key="${esc(key)}" aria-expanded="false" title="Arguments">{ }</button>`,
    '</div>',
  ].join('');
  const body: string[] = [];
  if (step.status === 'skipped' && step.skippedReason)
    body.push(`<div class="skip-reason">Skipped: ${esc(step.skippedReason)}</div>`);
  if (step.status === 'failed' || step.status === 'error') body.push(problemMarkup(step, ctx));
  if (step.attempts.length > 1) body.push(attemptsMarkup(step));
  if (step.notices.length > 0)
    body.push(`<ul class="notices">${step.notices.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  const compare = compareMarkup(step, ctx.outputDir);
  if (compare) body.push(compare);
  if (ctx.reviewable?.has(check))
    body.push(
      `<p class="review"><button type="button" class="accept accept-one" data-checks="${esc(check)}">Accept as golden</button></p>`,
    );
  // A golden written or updated by this run has nothing to compare with: it is shown as it is.
  const viewer = find(step, 'expected') !== undefined && find(step, 'actual') !== undefined;
  const shots = step.artefacts.filter(
    (a) => a.kind === 'screenshot' || a.kind === 'figure' || (a.kind === 'golden' && !viewer),
  );
  if (shots.length > 0)
    body.push(`<div class="shots">${shots.map((a) => shotMarkup(a, ctx.outputDir)).join('')}</div>`);
  body.push('<pre class="args" hidden></pre>');
  return `<li class="step ${step.status}">${head}<div class="step-body">${body.join('')}</div></li>`;
}

function problemMarkup(step: StepResult, ctx: CaseMarkupContext): string {
  const lines: string[] = [];
  if (step.error) {
    const status = step.error.status !== undefined ? ` (HTTP ${step.error.status})` : '';
    lines.push(`<div><code>${esc(step.error.code)}</code>${esc(step.error.message)}${status}</div>`);
  }
  if (step.image && !step.error?.message.includes(step.image.message))
    lines.push(`<div>${esc(step.image.message)}</div>`);
  if (lines.length === 0) lines.push(`<div>${esc(stepProblem(step) ?? step.status)}</div>`);
  const hint = ctx.imageHint !== undefined && isFailedImageCheck(step.error) ? ctx.imageHint : step.error?.hint;
  if (hint) lines.push(`<div class="hint">Hint: ${esc(hint)}</div>`);
  return `<div class="problem">${lines.join('')}</div>`;
}

function attemptsMarkup(step: StepResult): string {
  const items = step.attempts.map(
    (a) =>
      `<li>Attempt ${a.n}: ${a.error ? esc(formatError(a.error)) : 'succeeded'} · ${formatDuration(a.durationMs)}</li>`,
  );
  return `<ol class="attempts">${items.join('')}</ol>`;
}

function find(step: StepResult, kind: Artefact['kind']): Artefact | undefined {
  return step.artefacts.find((a) => a.kind === kind);
}

/** Expected, actual and diff of an image assertion: side by side, slider, blink, zoom. */
function compareMarkup(step: StepResult, outputDir: string | undefined): string | undefined {
  const expected = find(step, 'expected');
  const actual = find(step, 'actual');
  if (!step.image && !(expected && actual)) return undefined;
  const numbers = step.image ? formatImage(step.image) : '';
  if (!expected || !actual) {
    return step.image
      ? `<div class="numbers">${esc(step.image.outcome)}${numbers ? ` · ${esc(numbers)}` : ''}</div>`
      : undefined;
  }
  const diff = find(step, 'diff');
  const img = (a: Artefact, cls: string, alt: string): string =>
    `<img class="${cls}" src="${esc(artefactUrl(a.path, outputDir))}" alt="${esc(alt)}">`;
  const cell = (a: Artefact | undefined, title: string, cls: string): string =>
    a
      ? `<figure data-path="${esc(a.path)}"><figcaption>${title}</figcaption><div class="frame">${img(a, cls, title)}</div></figure>`
      : `<figure><figcaption>${title}</figcaption><div class="frame empty">none</div></figure>`;
  return [
    '<div class="compare">',
    '<div class="compare-bar">',
    '<div class="seg modes" role="group" aria-label="View">',
    '<button type="button" data-mode="side" aria-pressed="true">Side by side</button>',
    '<button type="button" data-mode="slider" aria-pressed="false">Slider</button>',
    '<button type="button" data-mode="blink" aria-pressed="false">Blink</button>',
    '</div>',
    '<div class="seg zooms" role="group" aria-label="Zoom">',
    ...['fit', '1', '2', '4'].map(
      (z) =>
        `<button type="button" data-zoom="${z}" aria-pressed="${z === 'fit'}">${z === 'fit' ? 'Fit' : `${z}×`}</button>`,
    ),
    '</div>',
    `<span class="numbers">${esc(step.image?.outcome ?? '')}${numbers ? ` · ${esc(numbers)}` : ''}</span>`,
    '</div>',
    '<div class="view side" data-view="side">',
    cell(expected, 'Expected', 'img-expected'),
    cell(actual, 'Actual', 'img-actual'),
    cell(diff, 'Diff', 'img-diff'),
    '</div>',
    '<div class="view" data-view="slider" hidden>',
    `<figure data-path="${esc(actual.path)}"><div class="frame"><div class="swipe">${img(expected, 'under', 'Expected')}<div class="over">${img(actual, 'over-img', 'Actual')}</div><div class="handle"></div></div></div></figure>`,
    '<div class="slider-controls"><span>Expected</span><input type="range" min="0" max="100" value="50" aria-label="Swipe between expected and actual"><span>Actual</span></div>',
    '</div>',
    '<div class="view" data-view="blink" hidden>',
    '<div class="blink-label expected">Expected</div>',
    `<figure data-path="${esc(actual.path)}"><div class="frame"><div class="blink" title="Click to pause or resume">${img(expected, 'b-expected', 'Expected')}${img(actual, 'b-actual', 'Actual')}</div></div></figure>`,
    '</div>',
    '</div>',
  ].join('\n');
}

/** Files a browser draws in an <img>. */
const SHOWN_INLINE = /\.(png|jpe?g|svg)$/i;

function shotMarkup(a: Artefact, outputDir: string | undefined): string {
  const url = esc(artefactUrl(a.path, outputDir));
  // A figure's PDF and TIFF are files to open, not pictures a browser draws inline.
  if (!SHOWN_INLINE.test(a.path))
    return `<figure class="shot" data-path="${esc(a.path)}"><figcaption><a href="${url}" target="_blank" rel="noopener">${esc(a.kind)}: ${esc(a.path)}</a></figcaption></figure>`;
  return `<figure class="shot" data-path="${esc(a.path)}"><a href="${url}" target="_blank" rel="noopener"><img src="${url}" alt="${esc(a.kind)}" loading="lazy"></a><figcaption>${esc(a.kind)}: ${esc(a.path)}</figcaption></figure>`;
}
