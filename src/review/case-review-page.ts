import { createHash } from 'node:crypto';
import { esc } from '../report/html-escape.js';
import { HTML_STYLE } from '../report/html-style.js';
import { CASE_REVIEW_SCRIPT } from './case-review-script.js';

/** The review page's own style, over the report's (its colours, pills and header). */
const REVIEW_STYLE = `
body { min-height: 100vh; }
.rv-top { padding: 12px 28px; position: sticky; top: 0; z-index: 2; }
.rv-top .top-row { gap: 14px; }
.views { margin-left: auto; display: flex; gap: 8px; }
button { font: inherit; border: 1px solid var(--line); background: var(--card); color: var(--ink); border-radius: 6px; padding: 5px 12px; cursor: pointer; }
button:disabled { opacity: .45; cursor: default; }
button:focus-visible, select:focus-visible, input:focus-visible, textarea:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.views button { border-color: rgba(255,255,255,.4); background: rgba(255,255,255,.1); color: #fff; }
.views button[aria-pressed="true"] { background: rgba(255,255,255,.28); border-color: #fff; }
kbd { font-family: var(--mono); font-size: 11px; border: 1px solid currentColor; border-radius: 4px; padding: 0 4px; margin-left: 2px; opacity: .75; }
main.review { max-width: none; padding: 16px 28px 40px; }
.case-head { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; margin-bottom: 10px; }
.case-head h1 { font-size: 18px; margin: 0; overflow-wrap: anywhere; }
.place { color: var(--muted); }
.badge { font-size: 12px; font-weight: 700; border-radius: 999px; padding: 1px 10px; text-transform: uppercase; letter-spacing: .3px; background: var(--skipped-bg); color: var(--muted); }
.badge.pass { background: var(--passed-bg); color: var(--passed); } .badge.fail { background: var(--failed-bg); color: var(--failed); }
.badge.unsure { background: #fff8c5; color: #7d4e00; } .badge.stale { outline: 2px dashed var(--error); }
.stale { background: var(--error-bg); color: var(--error); border: 1px solid var(--error); border-radius: 6px; padding: 6px 12px; margin: 0 0 10px; }
.case-body { display: grid; grid-template-columns: 1fr 360px; gap: 18px; align-items: start; }
.captures { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 12px; }
.captures figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px; }
.captures img { width: 100%; height: auto; display: block; background: #000; min-height: 120px; }
.captures figcaption { font-family: var(--mono); font-size: 12px; font-weight: 400; color: var(--muted); margin: 4px 0 0; overflow-wrap: anywhere; text-transform: none; letter-spacing: 0; }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; position: sticky; top: 70px; }
.panel h2 { font-size: 13px; margin: 14px 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: .4px; }
.actions, .moves { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 8px; }
.actions button[aria-pressed="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.actions button[data-verdict="pass"][aria-pressed="true"] { background: var(--passed); border-color: var(--passed); }
.actions button[data-verdict="fail"][aria-pressed="true"] { background: var(--failed); border-color: var(--failed); }
.actions button[data-verdict="unsure"][aria-pressed="true"] { background: #9a6700; border-color: #9a6700; }
.panel label { display: block; font-weight: 600; margin: 10px 0 4px; }
.panel textarea { width: 100%; min-height: 80px; font: inherit; border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; }
.panel input { width: 100%; font: inherit; border: 1px solid var(--line); border-radius: 6px; padding: 5px 8px; }
.tags { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 6px; }
.tags li { background: #ddf4ff; color: #0550ae; border-radius: 999px; padding: 1px 4px 1px 10px; font-size: 12px; display: inline-flex; gap: 4px; align-items: center; }
.tags button { border: 0; background: none; padding: 0 4px; color: inherit; }
.fields { display: grid; grid-template-columns: max-content 1fr; gap: 3px 12px; margin: 0; font-size: 13px; }
.fields dt { color: var(--muted); } .fields dd { margin: 0; overflow-wrap: anywhere; font-family: var(--mono); font-size: 12px; }
.saved { color: var(--muted); font-size: 12px; min-height: 1.4em; }
.filters { display: flex; gap: 12px; align-items: end; flex-wrap: wrap; margin-bottom: 12px; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
.filters select, .filters input { font: inherit; color: var(--ink); border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.grid button { padding: 6px; text-align: left; display: flex; flex-direction: column; gap: 4px; min-width: 0; }
.grid img { width: 100%; aspect-ratio: 1; object-fit: contain; background: #000; display: block; }
.grid .name { font-size: 12px; overflow-wrap: anywhere; max-width: 100%; }
.grid .marks { display: flex; gap: 4px; flex-wrap: wrap; }
.pager { display: flex; gap: 10px; align-items: center; margin-top: 14px; }
@media (max-width: 900px) { .case-body { grid-template-columns: 1fr; } .panel { position: static; } }
`;

const STYLE = HTML_STYLE + REVIEW_STYLE;

function hash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Only this style and this script run; images come from this server (as blobs the script fetched). */
const POLICY = [
  "default-src 'none'",
  "img-src 'self' blob:",
  `style-src ${hash(STYLE)}`,
  `script-src ${hash(CASE_REVIEW_SCRIPT)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
];

/** The policy as the server sends it: as a header it can also forbid framing the page. */
export const CASE_REVIEW_CSP = [...POLICY, "frame-ancestors 'none'"].join('; ');

function key(label: string, shortcut: string, shown: string, attrs = ''): string {
  return `<button type="button" aria-keyshortcuts="${shortcut}"${attrs}>${label} <kbd>${shown}</kbd></button>`;
}

/**
 * The page's document: a frame the script fills from the server's answers, so no string of the
 * output folder is ever part of its markup. The token goes to the script in a meta element
 * and comes back in a header of every request the page makes.
 */
export function caseReviewPage(token: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(POLICY.join('; '))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="wbplay-review" content="${esc(token)}">`,
    '<title>wbplay review</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body data-ready="false">',
    '<header class="top rv-top"><div class="top-row"><span class="brand">wbplay review</span><span id="progress" class="meta" role="status"></span>',
    `<nav class="views" aria-label="Views">${key('Case', 'c', 'C', ' id="show-case" aria-pressed="true"')}${key('Grid', 'g', 'G', ' id="show-grid" aria-pressed="false"')}</nav></div></header>`,
    '<main class="review">',
    '<section id="case-view" aria-label="Case">',
    '<div class="case-head"><h1 id="case-name"></h1><span id="case-status" class="pill"></span><span id="case-verdict" class="badge"></span><span id="case-place" class="place"></span></div>',
    '<p id="stale" class="stale" role="alert" hidden></p>',
    '<div class="case-body"><div id="captures" class="captures"></div>',
    '<aside class="panel">',
    `<div class="actions" role="group" aria-label="Verdict">${key('Pass', 'p', 'P', ' data-verdict="pass" aria-pressed="false"')}${key('Fail', 'f', 'F', ' data-verdict="fail" aria-pressed="false"')}${key('Unsure', 'u', 'U', ' data-verdict="unsure" aria-pressed="false"')}${key('Representative', 'r', 'R', ' id="representative" aria-pressed="false"')}</div>`,
    `<div class="moves" role="group" aria-label="Move">${key('Previous', 'ArrowLeft', '←', ' id="previous"')}${key('Next', 'ArrowRight', '→', ' id="next"')}${key('Next without verdict', 'n', 'N', ' id="next-open"')}</div>`,
    '<label for="comment">Comment <kbd>M</kbd></label><textarea id="comment" aria-keyshortcuts="m" placeholder="Saved when you leave the box (Esc)"></textarea>',
    '<label for="tag">Add tag <kbd>T</kbd></label><input id="tag" aria-keyshortcuts="t" autocomplete="off" placeholder="a word, then Enter">',
    '<ul id="tags" class="tags" aria-label="Tags"></ul>',
    '<p id="saved" class="saved" role="status"></p>',
    '<h2>Fields</h2><dl id="fields" class="fields"></dl>',
    '</aside></div></section>',
    '<section id="grid-view" aria-label="Grid" hidden>',
    '<div class="filters">',
    '<label>Verdict<select id="f-verdict"><option value="">any</option><option value="none">none yet</option><option value="pass">pass</option><option value="fail">fail</option><option value="unsure">unsure</option><option value="representative">representative</option><option value="disagreement">disagreement</option><option value="stale">stale</option></select></label>',
    '<label>Tag<select id="f-tag"><option value="">any</option></select></label>',
    '<label>Status<select id="f-status"><option value="">any</option><option value="passed">passed</option><option value="failed">failed</option><option value="error">error</option><option value="skipped">skipped</option></select></label>',
    '<label>Field<select id="f-field"><option value="">any</option></select></label>',
    '<label>Value<input id="f-value" type="search" placeholder="contains"></label>',
    '<span id="grid-count" class="place" role="status"></span>',
    '</div>',
    '<div id="grid" class="grid"></div>',
    '<div class="pager"><button type="button" id="page-prev">Previous page</button><span id="page-of" class="place"></span><button type="button" id="page-next">Next page</button></div>',
    '</section>',
    '</main>',
    `<script>${CASE_REVIEW_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
