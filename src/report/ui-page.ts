import { createHash } from 'node:crypto';
import { esc } from './html-escape.js';
import { HTML_STYLE } from './html-style.js';
import { UI_SCRIPT } from './ui-script.js';

/**
 * The live page's own style, over the report's (whose steps, pills, buttons and comparison
 * views it shares): a bar of run controls, the steps on the left, the chosen step on the right.
 */
const UI_STYLE = `
body { min-height: 100vh; }
.ui-top { padding: 14px 28px; position: sticky; top: 0; z-index: 2; }
.ui-top .top-row { gap: 12px; }
.ui-top .verdict.running, .ui-top .verdict.starting { background: var(--accent); }
.ui-top .verdict.problems { background: var(--error); }
.ui-top .verdict.offline { background: var(--skipped); }
.controls { display: flex; gap: 14px; align-items: center; margin-left: auto; font-size: 13px; }
.controls button { font: inherit; border: 1px solid rgba(255,255,255,.4); background: rgba(255,255,255,.1); color: #fff; border-radius: 6px; padding: 4px 12px; cursor: pointer; }
.controls label { display: inline-flex; gap: 6px; align-items: center; cursor: pointer; }
main.ui { max-width: none; padding: 16px 28px 40px; }
.panes { display: grid; grid-template-columns: minmax(420px, 46%) 1fr; gap: 18px; align-items: start; }
.panes > * { min-width: 0; }
#cases .case { border-left-width: 4px; }
#cases .case > h2 { font-size: 14px; margin: 0; padding: 10px 14px; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
#cases .case.running, #cases .case.queued { border-left-color: var(--accent); }
#cases .step { cursor: pointer; }
#cases .step-head { grid-template-columns: 22px 28px minmax(90px, max-content) 1fr auto auto; }
#cases .step[aria-selected="true"] { background: #ddf4ff; box-shadow: inset 3px 0 0 var(--accent); }
.step.running .icon, .step.queued .icon { color: var(--accent); }
.step.queued .step-head { color: var(--muted); }
.mark { font-size: 11px; font-weight: 700; border-radius: 999px; padding: 0 7px; text-transform: uppercase; letter-spacing: .3px; white-space: nowrap; }
.mark.changed { background: #fff8c5; color: #7d4e00; border: 1px solid #d4a72c; }
.mark.new { background: #ddf4ff; color: #0550ae; }
.mark.same { background: var(--skipped-bg); color: var(--muted); }
#detail { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; position: sticky; top: 96px; max-height: calc(100vh - 110px); overflow: auto; }
#detail h2 { font-size: 15px; margin: 0 0 4px; }
#detail h3 { font-size: 13px; margin: 16px 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: .4px; }
#detail .sub { color: var(--muted); font-size: 13px; }
.gallery { display: flex; flex-wrap: wrap; gap: 12px; }
.gallery figure { margin: 0; width: 200px; cursor: pointer; }
.gallery img { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; background: #fff; display: block; }
.gallery figcaption { text-transform: none; letter-spacing: 0; font-weight: 400; overflow-wrap: anywhere; display: flex; gap: 6px; align-items: baseline; }
.capture { margin: 10px 0 16px; }
.capture .title { display: flex; gap: 8px; align-items: baseline; font-size: 13px; margin-bottom: 6px; overflow-wrap: anywhere; }
.capture .title a { margin-left: auto; white-space: nowrap; }
.full .frame { display: inline-block; max-height: none; }
.full .frame img { cursor: zoom-in; max-width: 100%; max-height: 62vh; width: auto; height: auto; }
.full.natural .frame img { cursor: zoom-out; max-width: none; max-height: none; }
.snapshots { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: 10px; }
.snapshots figure { margin: 0; }
.snapshots img { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; display: block; background: #000; }
.snapshots figcaption { text-transform: none; font-family: var(--mono); font-weight: 400; letter-spacing: 0; }
#problems { margin-bottom: 16px; }
#problems h2 { font-size: 15px; color: var(--failed); margin: 0 0 8px; }
#problems pre { background: #1f2328; color: #f6f8fa; border-radius: 8px; padding: 12px 14px; overflow: auto; font-size: 12.5px; margin: 0 0 10px; }
#notices { color: var(--muted); font-size: 13px; }
.hint-line { color: var(--muted); font-size: 13px; }
@media (max-width: 900px) { .panes { grid-template-columns: 1fr; } #detail { position: static; max-height: none; } }
`;

const STYLE = HTML_STYLE + UI_STYLE;

function hash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Only this style and this script may run, images come from this server, and the script may talk to this server only. */
const POLICY = [
  "default-src 'none'",
  "img-src 'self'",
  `style-src ${hash(STYLE)}`,
  `script-src ${hash(UI_SCRIPT)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
];

/** The policy as the server sends it: as a header it can also forbid framing the page. */
export const UI_CSP = [...POLICY, "frame-ancestors 'none'"].join('; ');

/**
 * The page's document: an empty frame the script fills from the server's events, so the page
 * never holds a playbook's string in its markup. The token goes to the script in a meta
 * element and comes back in a header of every request the page makes.
 */
export function uiPage(token: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(POLICY.join('; '))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="wbplay-ui" content="${esc(token)}">`,
    '<title>wbplay ui</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body data-phase="starting" data-run="0">',
    '<header class="top ui-top">',
    '<div class="top-row"><span class="brand">wbplay ui</span><span id="verdict" class="verdict starting">STARTING</span><span id="summary" class="meta"></span>',
    '<div class="controls"><label><input type="checkbox" id="snapshots"> Step snapshots</label><button type="button" id="rerun">Run again</button></div></div>',
    '<div class="meta" id="where"></div>',
    '</header>',
    '<main class="ui">',
    '<section id="problems" hidden></section>',
    '<div class="panes"><div id="cases" aria-label="Cases and steps"></div><section id="detail"></section></div>',
    '<ul id="notices"></ul>',
    '</main>',
    `<script>${UI_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
