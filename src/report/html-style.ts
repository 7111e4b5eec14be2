/**
 * The report's stylesheet, inlined so the page is one file that works offline and from a CI
 * artefact store. Kept free of `url(...)` and fonts: nothing is fetched.
 */
export const HTML_STYLE = `
:root {
  --bg: #f4f6f8; --card: #fff; --ink: #1f2328; --muted: #59636e; --line: #d8dee4;
  --passed: #1a7f37; --passed-bg: #dafbe1; --failed: #cf222e; --failed-bg: #ffebe9;
  --error: #bc4c00; --error-bg: #fff1e5; --skipped: #6e7781; --skipped-bg: #eaeef2;
  --accent: #0969da; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
code, .mono { font-family: var(--mono); font-size: 12.5px; }
header.top { background: #24292f; color: #fff; padding: 18px 28px 20px; }
.top-row { display: flex; align-items: center; gap: 16px; flex-wrap: wrap; }
.brand { font-size: 18px; font-weight: 600; letter-spacing: .2px; }
.verdict { font-weight: 700; padding: 3px 12px; border-radius: 999px; font-size: 13px; letter-spacing: .6px; }
.verdict.passed { background: var(--passed); } .verdict.failed { background: var(--failed); }
.verdict.error { background: var(--error); } .verdict.skipped, .verdict.interrupted { background: var(--skipped); }
.top .meta { color: #c9d1d9; font-size: 13px; margin-top: 6px; }
.tiles { display: flex; gap: 10px; margin-top: 16px; flex-wrap: wrap; }
.tile { background: rgba(255,255,255,.08); border: 1px solid rgba(255,255,255,.16); color: #fff; border-radius: 8px; padding: 8px 14px; min-width: 92px; cursor: pointer; text-align: left; font: inherit; }
.tile b { display: block; font-size: 22px; line-height: 1.1; }
.tile span { font-size: 12px; color: #c9d1d9; }
.tile.passed b { color: #6fdd8b; } .tile.failed b { color: #ff8182; } .tile.error b { color: #ffa657; } .tile.skipped b { color: #afb8c1; }
.tile[aria-pressed="true"] { background: rgba(255,255,255,.22); border-color: #fff; }
.bar { display: flex; height: 6px; border-radius: 3px; overflow: hidden; margin-top: 14px; background: rgba(255,255,255,.12); max-width: 720px; }
.bar i { display: block; } .bar .passed { background: #2da44e; } .bar .failed { background: #fa4549; } .bar .error { background: #fb8f44; } .bar .skipped { background: #8c959f; }
main { padding: 18px 28px 40px; max-width: 1400px; }
.toolbar { display: flex; gap: 12px; align-items: center; margin-bottom: 14px; flex-wrap: wrap; }
.toolbar input { font: inherit; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; min-width: 280px; }
.toolbar .count { color: var(--muted); }
details.run { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; margin-bottom: 14px; }
details.run summary { cursor: pointer; font-weight: 600; }
details.run dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 10px 0 4px; }
details.run dt { color: var(--muted); }
details.run dd { margin: 0; overflow-wrap: anywhere; }
.case { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--skipped); border-radius: 8px; margin-bottom: 10px; }
.case.passed { border-left-color: var(--passed); } .case.failed { border-left-color: var(--failed); } .case.error { border-left-color: var(--error); }
.case > summary { display: flex; gap: 10px; align-items: baseline; padding: 10px 14px; cursor: pointer; flex-wrap: wrap; }
.case > summary::-webkit-details-marker { color: var(--muted); }
.case-name { font-weight: 600; overflow-wrap: anywhere; }
.case .where, .case .study, .case .up-to-date { color: var(--muted); font-size: 13px; overflow-wrap: anywhere; }
.case .dur { margin-left: auto; color: var(--muted); font-size: 13px; white-space: nowrap; }
.pill { font-size: 11.5px; font-weight: 600; text-transform: uppercase; letter-spacing: .4px; padding: 1px 8px; border-radius: 999px; white-space: nowrap; }
.pill.passed { color: var(--passed); background: var(--passed-bg); } .pill.failed { color: var(--failed); background: var(--failed-bg); }
.pill.error { color: var(--error); background: var(--error-bg); } .pill.skipped { color: var(--skipped); background: var(--skipped-bg); }
.case-problem { margin: 0 14px 10px; padding: 8px 12px; border-radius: 6px; background: var(--failed-bg); color: #82071e; overflow-wrap: anywhere; }
.case.error .case-problem { background: var(--error-bg); color: #762c00; }
ol.steps { list-style: none; margin: 0; padding: 0 0 6px; border-top: 1px solid var(--line); }
.step { padding: 7px 14px; border-bottom: 1px solid #eef1f4; }
.step:last-child { border-bottom: 0; }
.step-head { display: grid; grid-template-columns: 22px 32px minmax(110px, max-content) 1fr auto auto auto; gap: 10px; align-items: baseline; }
.args-toggle { font: 600 11px/1 var(--mono); color: var(--accent); background: none; border: 1px solid var(--line); border-radius: 4px; padding: 3px 5px; cursor: pointer; }
.args-toggle[aria-expanded="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.step .icon { font-weight: 700; text-align: center; }
.step.passed .icon { color: var(--passed); } .step.failed .icon { color: var(--failed); } .step.error .icon { color: var(--error); } .step.skipped .icon { color: var(--skipped); }
.step.skipped .step-head { color: var(--muted); }
.step .idx { color: var(--muted); text-align: right; font-variant-numeric: tabular-nums; }
.step .kind { font-family: var(--mono); font-size: 12.5px; font-weight: 600; }
.step .desc { overflow-wrap: anywhere; }
.step .loc { color: var(--muted); font-family: var(--mono); font-size: 12px; white-space: nowrap; }
.step .time { color: var(--muted); font-size: 12.5px; white-space: nowrap; text-align: right; min-width: 64px; font-variant-numeric: tabular-nums; }
.step .retries { color: var(--error); font-size: 12px; font-weight: 600; margin-left: 6px; }
.step-body { margin: 0 0 0 64px; }
.step-body > * { margin-top: 6px; }
.step-body > *:last-child { margin-bottom: 2px; }
.problem { border-radius: 6px; padding: 8px 12px; background: var(--failed-bg); color: #82071e; overflow-wrap: anywhere; }
.step.error .problem { background: var(--error-bg); color: #762c00; }
.problem code { font-weight: 700; margin-right: 6px; }
.problem .hint { color: var(--ink); margin-top: 4px; }
.skip-reason { color: var(--muted); font-size: 13px; margin-top: 2px; }
.attempts { margin: 6px 0 0; padding-left: 18px; color: var(--muted); font-size: 13px; }
.notices { margin: 6px 0 0; padding-left: 18px; font-size: 13px; }
.compare { margin: 10px 0 4px; border: 1px solid var(--line); border-radius: 8px; padding: 10px; background: #fbfcfd; }
.compare-bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 10px; }
.seg { display: inline-flex; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.seg button { font: inherit; font-size: 12.5px; border: 0; border-right: 1px solid var(--line); background: #fff; padding: 4px 10px; cursor: pointer; color: var(--ink); }
.seg button:last-child { border-right: 0; }
.seg button[aria-pressed="true"] { background: var(--accent); color: #fff; }
.numbers { color: var(--muted); font-size: 12.5px; }
.frame { background-color: #fff; background-image: linear-gradient(45deg, #e6e9ed 25%, transparent 25%, transparent 75%, #e6e9ed 75%), linear-gradient(45deg, #e6e9ed 25%, transparent 25%, transparent 75%, #e6e9ed 75%); background-size: 16px 16px; background-position: 0 0, 8px 8px; border: 1px solid var(--line); border-radius: 4px; overflow: auto; max-height: 70vh; }
.frame { display: inline-block; max-width: 100%; vertical-align: top; line-height: 0; }
.zoom-fit .frame { display: block; }
/* One image at a time (slider, blink) fits a comfortable size rather than the page width. */
.zoom-fit [data-view="slider"] .frame, .zoom-fit [data-view="blink"] .frame, .zoom-fit .slider-controls { max-width: min(100%, 512px); }
.compare figure { margin: 0; }
.frame img, .swipe img, .blink img { display: block; image-rendering: pixelated; }
.zoom-fit .frame img { width: 100%; height: auto; }
.side { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 10px; }
.shots figure { margin: 0; }
figcaption { font-size: 12px; font-weight: 600; color: var(--muted); margin-bottom: 4px; text-transform: uppercase; letter-spacing: .4px; }
figure.broken .frame::after, figure.broken.shot::after { content: "image not found: " attr(data-path); display: block; padding: 10px; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
figure.broken img { display: none; }
.swipe { position: relative; display: inline-block; max-width: 100%; line-height: 0; cursor: ew-resize; touch-action: none; }
.zoom-fit .swipe { display: block; }
.swipe .over { position: absolute; inset: 0; overflow: hidden; }
.swipe .over img { position: absolute; top: 0; left: 0; }
.swipe .handle { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--accent); box-shadow: 0 0 0 1px #fff; pointer-events: none; }
.slider-controls { display: flex; align-items: center; gap: 10px; margin-top: 8px; font-size: 12px; color: var(--muted); }
.slider-controls input { flex: 1; accent-color: var(--accent); }
.blink-label { font-size: 12px; font-weight: 700; margin: 6px 0; letter-spacing: .4px; text-transform: uppercase; }
.blink-label.expected { color: var(--passed); } .blink-label.actual { color: var(--failed); }
.blink img.b-actual { display: none; }
.blink.show-actual img.b-expected { display: none; }
.blink.show-actual img.b-actual { display: block; }
.shots { display: flex; gap: 12px; flex-wrap: wrap; margin-top: 8px; }
.shot { width: 180px; }
.shot a { display: block; }
.shot img { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; background: #fff; image-rendering: auto; }
.shot figcaption { text-transform: none; letter-spacing: 0; font-weight: 400; overflow-wrap: anywhere; }
pre.args { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; overflow: auto; max-height: 320px; margin: 6px 0 0; font-size: 12px; }
.empty { color: var(--muted); padding: 24px; text-align: center; }
footer { color: var(--muted); font-size: 12px; padding: 0 28px 28px; }
[hidden] { display: none !important; }
@media (max-width: 800px) { .side { grid-template-columns: 1fr; } .step-head { grid-template-columns: 22px 28px 1fr; } .step .loc, .step .time, .args-toggle { grid-column: 3; text-align: left; justify-self: start; } .step-body { margin-left: 0; } }
.review { margin: 6px 0; }
button.accept { font: inherit; font-size: 12.5px; border: 1px solid var(--accent); border-radius: 4px; background: #fff; color: var(--accent); padding: 3px 10px; cursor: pointer; margin-left: 8px; }
button.accept.accepted { border-color: #2e7d32; color: #2e7d32; cursor: default; }
`;
