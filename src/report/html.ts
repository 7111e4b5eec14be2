import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { writeChunksAtomic } from '../files/atomic-write.js';
import type { CaseSummary, RunResult, Status } from '../result/result.js';
import { caseMarkup, caseSearchText, stepArgs, type CaseMarkupContext } from './html-case.js';
import { esc, jsonForScript } from './html-escape.js';
import { HTML_SCRIPT, REVIEW_SCRIPT } from './html-script.js';
import { HTML_STYLE } from './html-style.js';
import { htmlImageHint } from './hints.js';
import { ReportNames } from './names.js';
import type { Reporter } from '../result/reporter.js';
import { formatDuration, formatSummary } from './report-text.js';

export const HTML_REPORT_FILE = 'report.html';

const gzipped = promisify(gzip);

export interface HtmlOptions {
  /** The folder the report is written to; artefact paths are made relative to it. */
  outputDir?: string;
  /** How the output folder is named in the commands of hints. */
  names?: ReportNames;
  /**
   * Served by `wbplay show-report`: failed image checks get accept buttons that post to the
   * server with this per-server token. A report written to disk has none.
   */
  review?: { token: string; checks: ReadonlySet<string> };
}

/** Cases in the page as it opens; the rest follow a page at a time (failures come first). */
export const CASES_PER_PAGE = 200;

/** Cases that need a look come first; the others keep the run's order. */
const ORDER: Record<Status, number> = { failed: 0, error: 1, skipped: 2, passed: 2 };

/**
 * One self-contained page a person opens from CI artefacts: the verdict and counts at the top,
 * failing cases first and open, each step with its status, time, attempts, error and source
 * position, and image assertions with expected / actual / diff. No network: the style and
 * script are inline, images are the artefact files next to it. The page is made a piece at a
 * time, one case after another, so a run of any size is never held whole; of a run with more
 * than one page of cases, each case's status and search text (tens of bytes) are held until
 * the search index is written.
 */
export async function* htmlChunks(result: RunResult, options: HtmlOptions = {}): AsyncIterable<string> {
  const summaries = result.cases.summaries;
  const ctx: CaseMarkupContext = {
    args: {},
    ...(options.outputDir ? { outputDir: options.outputDir } : {}),
    ...(options.review ? { reviewable: options.review.checks } : {}),
    ...(options.names ? { imageHint: htmlImageHint(options.names.outputName, options.review !== undefined) } : {}),
  };
  const ordered = [...summaries.keys()].sort(
    (a, b) => ORDER[(summaries[a] as CaseSummary).status] - ORDER[(summaries[b] as CaseSummary).status] || a - b,
  );
  const title = `wbplay report: ${result.status} (${formatSummary(result.summary)})`;
  // Only this style and this script may run: an injected <script> or on* attribute would not.
  const csp = [
    "default-src 'none'",
    "img-src 'self' file: data: blob:",
    `style-src '${hash(HTML_STYLE)}'`,
    `script-src '${hash(HTML_SCRIPT)}'${options.review ? ` '${hash(REVIEW_SCRIPT)}'` : ''}`,
    ...(options.review ? ["connect-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  yield lines(
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<style>${HTML_STYLE}</style>`,
    '</head>',
    '<body>',
    header(result),
    '<main>',
    runDetails(result),
    `<div class="toolbar"><input id="search" type="search" placeholder="Filter by case, playbook or study" aria-label="Filter cases"><span class="count" id="shown"></span>${options.review && options.review.checks.size > 0 ? `<button type="button" class="accept accept-run" data-checks="${esc([...options.review.checks].join(' '))}">Accept all ${options.review.checks.size} failing images</button>` : ''}</div>`,
  );
  if (ordered.length === 0) yield lines('<p class="empty">No cases ran.</p>');
  else yield `<div id="cases" data-total="${ordered.length}" data-page="${CASES_PER_PAGE}">\n`;
  // The first page is the document; later pages are packed text the script adds when asked
  // for, so a report of ten thousand cases opens about as fast as one of a few hundred.
  let position = 0;
  let later: string[] = [];
  // With pages, the script finds matches in an index of every case (status, search text), not
  // in the cases' markup: a search then unpacks only the pages of the cases it shows.
  const paged = ordered.length > CASES_PER_PAGE;
  const index: string[] = [];
  for await (const c of result.cases.pick(ordered)) {
    ctx.args = {};
    const markup = caseMarkup(c, position, ctx, ordered[position]);
    if (paged) index.push(jsonForScript([c.status, caseSearchText(c)]));
    if (position < CASES_PER_PAGE) yield `${position === 0 ? '' : '\n'}${markup}`;
    else {
      if (position === CASES_PER_PAGE) {
        yield '\n</div>\n';
        yield lines(
          `<p class="more"><button type="button" id="more">Show ${Math.min(CASES_PER_PAGE, ordered.length - CASES_PER_PAGE)} more cases</button></p>`,
        );
      }
      later.push(markup);
      if (later.length === CASES_PER_PAGE) {
        yield await packedPage(later);
        later = [];
      }
    }
    position++;
  }
  if (later.length > 0) yield await packedPage(later);
  if (paged) yield `<script type="application/json" id="wbplay-index">[${index.join(',')}]</script>\n`;
  else if (ordered.length > 0) yield '\n</div>\n';
  yield lines(
    '</main>',
    `<footer>Written by wbplay ${esc(result.provenance.wbplay)} · result version ${result.version}</footer>`,
  );
  yield '<script type="application/json" id="wbplay-args">{';
  // The arguments of every step, in the order of the page, read in a second pass over the cases.
  position = 0;
  let comma = '';
  for await (const c of result.cases.pick(ordered)) {
    for (const step of c.steps) {
      yield `${comma}${jsonForScript(`${position}.${step.index}`)}:${jsonForScript(stepArgs(step))}`;
      comma = ',';
    }
    position++;
  }
  yield '}</script>\n';
  yield lines(
    `<script>${HTML_SCRIPT}</script>`,
    ...(options.review
      ? [`<meta name="wbplay-review" content="${esc(options.review.token)}">`, `<script>${REVIEW_SCRIPT}</script>`]
      : []),
    '</body>',
    '</html>',
  );
}

/**
 * A later page of cases as the script unpacks it: the markup gzip-compressed, in base64. The
 * browser reads a page's bytes as the report opens, even in an inert script element; case
 * markup repeats itself, so packed it is about a tenth of its size, and base64 holds no `<`
 * that could end the element.
 */
async function packedPage(markup: readonly string[]): Promise<string> {
  const packed = await gzipped(Buffer.from(markup.join('\n'), 'utf8'));
  return `<script type="text/x-wbplay-cases">${packed.toString('base64')}</script>\n`;
}

/** Lines of the page, each ended. */
function lines(...parts: string[]): string {
  return parts.map((p) => `${p}\n`).join('');
}

export async function renderHtml(result: RunResult, options: HtmlOptions = {}): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of htmlChunks(result, options)) chunks.push(chunk);
  return chunks.join('');
}

/** Writes `<out>/report.html`; its hints name the output folder from the project root (`root`, else the working folder). */
export async function writeHtmlReport(result: RunResult, outputDir: string, root?: string): Promise<string> {
  const path = join(outputDir, HTML_REPORT_FILE);
  await writeChunksAtomic(
    path,
    htmlChunks(result, { outputDir, names: new ReportNames(root ?? process.cwd(), outputDir) }),
  );
  return path;
}

export class HtmlReporter implements Reporter {
  readonly name = 'html';
  constructor(
    private readonly outputDir: string,
    private readonly root?: string,
  ) {}

  async onRunEnd(result: RunResult): Promise<void> {
    await writeHtmlReport(result, this.outputDir, this.root);
  }
}

function header(result: RunResult): string {
  const s = result.summary;
  const wb = result.provenance.workbench;
  const where = wb
    ? [wb.name, wb.engine_version ? `engine ${wb.engine_version}` : undefined].filter(Boolean).join(' ')
    : '';
  const meta = [`Started ${result.startedAt}`, `took ${formatDuration(result.durationMs)}`, where ? `on ${where}` : '']
    .filter(Boolean)
    .join(' · ');
  const tile = (filter: string, count: number, label: string): string =>
    `<button type="button" class="tile ${filter}" data-filter="${filter}" aria-pressed="false"><b>${count}</b><span>${label}</span></button>`;
  const bar = (['passed', 'failed', 'error', 'skipped'] as const)
    .filter((k) => s[k] > 0)
    .map((k) => `<i class="${k}" data-share="${s.total > 0 ? s[k] / s.total : 0}" title="${s[k]} ${k}"></i>`)
    .join('');
  return [
    '<header class="top">',
    `<div class="top-row"><span class="brand">wbplay report</span><span class="verdict ${result.status}">${result.status.toUpperCase()}</span></div>`,
    `<div class="meta">${esc(meta)}</div>`,
    '<div class="tiles">',
    tile('all', s.total, s.total === 1 ? 'case' : 'cases'),
    tile('passed', s.passed, s.upToDate ? `passed (${s.upToDate} up to date)` : 'passed'),
    tile('failed', s.failed, 'failed'),
    tile('error', s.error, s.error === 1 ? 'error' : 'errors'),
    tile('skipped', s.skipped, 'skipped'),
    '</div>',
    `<div class="bar" aria-hidden="true">${bar}</div>`,
    '</header>',
  ].join('\n');
}

/** Provenance: what ran, where, with which versions, so a figure can be traced back. */
function runDetails(result: RunResult): string {
  const p = result.provenance;
  const rows: Array<[string, string]> = [
    ['Started', result.startedAt],
    ['Duration', formatDuration(result.durationMs)],
    ['Result', formatSummary(result.summary)],
  ];
  const wb = p.workbench;
  if (wb?.name) rows.push(['Workbench', wb.name]);
  if (wb?.url) rows.push(['Workbench URL', wb.url]);
  if (wb?.engine_version) rows.push(['Engine version', wb.engine_version]);
  if (wb?.api_version) rows.push(['API version', wb.api_version]);
  rows.push(['wbplay', p.wbplay]);
  for (const g of result.unusedGoldens ?? []) rows.push(['Golden no check used', g]);
  for (const b of p.playbooks) rows.push(['Playbook', `${b.path} (sha256 ${b.sha256})`]);
  const workbenches = distinctWorkbenches(result.cases.summaries);
  if (workbenches.length > 1) rows.push(['Workbenches', workbenches.join(', ')]);
  return `<details class="run"><summary>Run details</summary><dl>${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl></details>`;
}

function distinctWorkbenches(cases: readonly CaseSummary[]): string[] {
  return [...new Set(cases.map((c) => c.workbench).filter((w): w is string => w !== undefined))];
}

function hash(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
