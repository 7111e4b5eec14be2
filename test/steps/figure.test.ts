// Publication figures on the reference workbench: the example playbook's figure against its
// golden (PNG pixels, SVG text), its size and dpi, the same bytes twice, the SVG in Chromium
// against the PNG, scale bars against the camera at two zooms, the layout grid's cells, and bad
// figures refused at their line before any workbench call.
// UPDATE_GOLDENS=1 rewrites the golden PNG and SVG after a deliberate change.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { access, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import pixelmatch from 'pixelmatch';
import { connect } from '../../src/client/index.js';
import { loadPlaybook } from '../../src/compile/index.js';
import { readResolution } from '../../src/image/png-resolution.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { layout, type LayoutArgs } from '../../src/steps/layout.js';
import type { StepRunContext } from '../../src/steps/run-context.js';
import { differingPixels, pixels, wbplay } from '../helpers/cohort.js';
import { deadPort } from '../helpers/net.js';
import { startTestWorkbench } from '../helpers/workbench.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const GOLDEN_PNG = join(root, 'playbooks', 'goldens', 'tumour-figure.png');
const GOLDEN_SVG = join(root, 'test', 'golden', 'figure', 'tumour-figure.svg');
const update = process.env.UPDATE_GOLDENS === '1';
const CHROMIUM = '/usr/bin/chromium';

let dir = '';
let demo = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-figure-'));
  demo = join(dir, 'demo');
  await writeDemoData(demo);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * The SVG as compared with its golden: embedded images by their hash and the typeface by name
 * (both are checked elsewhere, byte for byte), and the wbplay version, which every release changes.
 */
function comparable(svg: string): string {
  return svg
    .replace(/data:font\/ttf;base64,[A-Za-z0-9+/=]+/g, 'data:font/ttf;base64,<font>')
    .replace(
      /data:image\/png;base64,([A-Za-z0-9+/=]+)/g,
      (_, b64: string) =>
        `data:image/png;sha256,${createHash('sha256').update(Buffer.from(b64, 'base64')).digest('hex')}`,
    )
    .replace(/(<wbplay:fact name="wbplay:version">)[^<]*/, '$1<version>');
}

test('the figure example: golden pixels and SVG, 183 mm at 300 dpi, the same bytes on a second run, the SVG in Chromium as the PNG', async (t) => {
  const runs = [];
  for (const name of ['a', 'b']) {
    const out = join(dir, `example-${name}`);
    const r = await wbplay(['run', join(root, 'playbooks', 'figure.yaml'), '--out', out, '--quiet'], root, {
      WBPLAY_DEMO: demo,
    });
    assert.equal(r.code, 0, r.stderr);
    runs.push({
      png: join(out, 'tumour-figure.png'),
      svg: join(out, 'tumour-figure.svg'),
      pdf: join(out, 'tumour-figure.pdf'),
    });
  }
  const [a, b] = runs as [(typeof runs)[0], (typeof runs)[0]];
  const png = await readFile(a.png);
  const svg = await readFile(a.svg, 'utf8');
  assert.deepEqual(await readFile(b.png), png, 'the same playbook and data give the same PNG bytes');
  assert.equal(await readFile(b.svg, 'utf8'), svg, 'and the same SVG');
  assert.deepEqual(
    await readFile(b.pdf),
    await readFile(a.pdf),
    'and the same PDF (its font subsets named by their text)',
  );

  const dpi = readResolution(png);
  assert.ok(dpi && Math.abs(dpi.x - 300) < 0.01 && Math.abs(dpi.y - 300) < 0.01, `pHYs reads ${JSON.stringify(dpi)}`);
  const image = await pixels(a.png);
  assert.ok(Math.abs(image.width - (183 / 25.4) * 300) <= 1, `183 mm at 300 dpi is ${image.width} pixels`);

  if (update) {
    await mkdir(join(root, 'test', 'golden', 'figure'), { recursive: true });
    await copyFile(a.png, GOLDEN_PNG);
    await writeFile(GOLDEN_SVG, comparable(svg));
  }
  assert.equal(differingPixels(image, await pixels(GOLDEN_PNG)), 0, 'the figure has the golden pixels');
  assert.equal(comparable(svg), await readFile(GOLDEN_SVG, 'utf8'), 'the SVG has the golden text');
  for (const text of [
    'Axial',
    'Coronal',
    'Sagittal',
    'CT',
    'MR',
    '20 mm',
    'tumour',
    '>A<',
    '>F<',
    'CT (HU)',
    '>\u2212160<',
    '>240<',
    '>tumour<',
    '<polygon ',
  ])
    assert.ok(svg.includes(text), `the SVG holds "${text}" as text`);

  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: image.width, height: image.height } });
    await page.goto(pathToFileURL(a.svg).href);
    const shot = await page.screenshot({ type: 'png' });
    const drawn = await pixels(await writeTemp('chromium.png', shot));
    const diff = pixelmatch(drawn.data, image.data, undefined, image.width, image.height, { threshold: 0.2 });
    const ratio = diff / (image.width * image.height);
    t.diagnostic(`Chromium's drawing of the SVG differs from the PNG in ${diff} pixels`);
    assert.ok(
      ratio < 0.001,
      `Chromium's drawing of the SVG differs from the PNG in ${(ratio * 100).toFixed(3)}% of pixels`,
    );
  } finally {
    await browser.close();
  }
});

/** A playbook in the test folder that loads the demo CT and reinits, then runs `steps`. */
async function ctPlaybook(name: string, steps: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    `version: 1
vars: { data: ${JSON.stringify(demo)} }
steps:
  - load: { file: "\${data}/ct.nrrd", as: ct }
  - reinit
${steps}`,
  );
  return path;
}

async function writeTemp(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

test('a scale bar is its millimetres over the camera’s mm per pixel, at two zooms', async () => {
  const figure = (save: string) => `  - figure:
      save: \${out}/${save}
      width: 512px
      margin: 0px
      gap: 0px
      letters: none
      panels: [{ window: stdmulti/axial, scale_bar: { length: 10, color: [1, 0, 1] } }]
`;
  const pb = await ctPlaybook(
    'scale.yaml',
    `  - camera: { window: stdmulti/axial, parallel_scale: 40 }
${figure('near.png')}  - camera: { window: stdmulti/axial, parallel_scale: 80 }
${figure('far.png')}`,
  );
  const out = join(dir, 'scale');
  const r = await wbplay(['run', pb, '--out', out, '--quiet'], dir);
  assert.equal(r.code, 0, r.stderr);
  for (const [file, scale] of [
    ['near.png', 40],
    ['far.png', 80],
  ] as const) {
    const image = await pixels(join(out, file));
    assert.equal(image.width, 512);
    // The panel is 512 pixels high and shows 2 × parallel_scale millimetres.
    const expected = 10 / ((2 * scale) / 512);
    const bar = longestMagentaRun(image);
    assert.ok(Math.abs(bar - expected) <= 1, `${file}: the bar is ${bar} pixels, expected ${expected}`);
  }
});

function longestMagentaRun(image: { width: number; height: number; data: Buffer }): number {
  let best = 0;
  for (let y = 0; y < image.height; y++) {
    let run = 0;
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4;
      const magenta = image.data[i] === 255 && image.data[i + 1] === 0 && image.data[i + 2] === 255;
      run = magenta ? run + 1 : 0;
      best = Math.max(best, run);
    }
  }
  return best;
}

test('bad figures are playbook errors at their line, before any workbench call', async () => {
  const pb = join(dir, 'bad.yaml');
  await writeFile(
    pb,
    `version: 1
steps:
  - load: { file: ct.nrrd, as: ct }
  - layout: { rows: [{ name: ct, nodes: [ct] }], columns: [axial, coronal] }
  - figure:
      save: \${out}/unknown.png
      width: 89mm
      panels: [{ window: mxn/mxn__ct_sagital }]
  - figure:
      save: \${out}/three-d.png
      width: 89mm
      panels:
        - { window: stdmulti/3d, scale_bar: 10 }
  - figure:
      save: \${out}/small.png
      width: 20mm
      dpi: 150
      columns: 3
      panels: [{ window: stdmulti/axial }, { window: stdmulti/coronal }, { window: stdmulti/sagittal }]
`,
  );
  await writeFile(join(dir, 'ct.nrrd'), await readFile(join(demo, 'ct.nrrd')));
  // Nothing listens here: a workbench call would end in a connection error, not these.
  const r = await wbplay(['run', pb, '--url', `http://127.0.0.1:${await deadPort()}`, '--out', join(dir, 'bad')], dir);
  assert.equal(r.code, 2, r.stderr);
  const blocks = r.stderr.split('\n\n');
  for (const [code, line, words] of [
    ['UNKNOWN_CELL', 8, 'no cell `mxn__ct_sagital`'],
    ['SCALE_BAR_3D', 13, 'the 3D window `stdmulti/3d`'],
    ['FIGURE_TOO_SMALL', 16, 'pixels per panel'],
  ] as const) {
    const block = blocks.find((b) => b.includes(`error[${code}]`));
    assert.ok(block?.includes(words), `${code}: ${r.stderr}`);
    assert.match(block ?? '', new RegExp(`bad\\.yaml:${line}:\\d+`), `${code} at line ${line}`);
  }
  assert.doesNotMatch(r.stderr, /unreachable|ECONNREFUSED/i);
  await assert.rejects(access(join(dir, 'bad', 'small.png')));
});

test('a layout grid: every cell shows the nodes of its row only and sits at the one position', async (t) => {
  const wb = await startTestWorkbench();
  t.after(() => wb.stop());
  const client = connect({ url: wb.url });
  t.after(() => client.close());
  const pb = join(dir, 'grid.yaml');
  await writeFile(
    pb,
    `version: 1
steps:
  - load: { file: ${JSON.stringify(join(demo, 'ct.nrrd'))}, as: ct }
  - load: { file: ${JSON.stringify(join(demo, 'mr.nii.gz'))}, as: mr }
  - layout:
      rows: [{ name: ct, nodes: [ct] }, { name: mr, nodes: [mr] }]
      columns: [axial, sagittal]
      at: [56, 52, 36]
`,
  );
  const step = loadPlaybook(pb).cases[0]!.steps.find((s) => s.kind === 'layout')!;
  const args = step.args as LayoutArgs;
  assert.deepEqual(args.cells, ['mxn__ct_axial', 'mxn__ct_sagittal', 'mxn__mr_axial', 'mxn__mr_sagittal']);

  const uids: Record<string, string> = {};
  for (const [alias, file] of [
    ['ct', 'ct.nrrd'],
    ['mr', 'mr.nii.gz'],
  ] as const)
    uids[alias] = (await client.nodes.create({ file: join(demo, file), transfer: 'direct' })).node.uid;
  const controller = new AbortController();
  const ctx = {
    client,
    signal: controller.signal,
    resolveNode: async (ref: { ref?: string }) => uids[ref.ref ?? '']!,
  } as unknown as StepRunContext;
  assert.equal((await layout.run(args, ctx)).status, 'passed');

  for (const cell of args.cells ?? []) {
    const window = client.mxn.window(cell);
    const row = cell.includes('__ct_') ? 'ct' : 'mr';
    assert.equal(await window.nodeVisible(uids.ct!), row === 'ct', `${cell} shows CT only in the CT row`);
    assert.equal(await window.nodeVisible(uids.mr!), row === 'mr', `${cell} shows MR only in the MR row`);
    assert.deepEqual((await window.selectedPosition()).position, [56, 52, 36], `${cell} is at the position`);
    assert.equal((await window.summary()).view_direction, cell.endsWith('axial') ? 'axial' : 'sagittal');
  }
});

test('in a cohort every study makes its own figure', async () => {
  const pb = join(dir, 'cohort-figure.yaml');
  await writeFile(
    pb,
    `version: 1
foreach: { list: [{ name: one, x: 40 }, { name: two, x: 70 }] }
vars: { data: ${JSON.stringify(demo)} }
steps:
  - load: { file: "\${data}/ct.nrrd", as: ct }
  - reinit
  - position: ["\${study.x}", 52, 36]
  - figure:
      save: \${out}/\${study.name}.png
      width: 40mm
      dpi: 150
      svg: false
      column_headings: ["\${study.name}"]
      panels: [{ window: stdmulti/sagittal }]
`,
  );
  const out = join(dir, 'cohort-figure');
  const r = await wbplay(['run', pb, '--out', out, '--quiet'], dir);
  assert.equal(r.code, 0, r.stderr);
  const [one, two] = [await pixels(join(out, 'one.png')), await pixels(join(out, 'two.png'))];
  assert.equal(one.width, Math.round((40 / 25.4) * 150));
  assert.ok(differingPixels(one, two) > 0, 'each study its own slice and heading');
  await assert.rejects(access(join(out, 'one.svg')), 'svg: false writes no SVG');
});

test('an image file as a panel, titles, own letters and explicit legend entries, in inches', async () => {
  const diagram = join(dir, 'diagram.png');
  const { encodeRenderPng } = await import('../../src/image/png-encode.js');
  await writeFile(
    diagram,
    encodeRenderPng(
      {
        width: 40,
        height: 20,
        data: new Uint8Array(40 * 20 * 4).fill(0).map((_, i) => (i % 4 === 1 ? 200 : i % 4 === 3 ? 255 : 0)),
      },
      true,
    ),
  );
  const pb = await ctPlaybook(
    'mixed.yaml',
    `  - figure:
      save: \${out}/mixed.png
      width: 3.5in
      dpi: 200
      letters: [i, ii]
      panels:
        - { window: stdmulti/coronal, title: "CT <coronal> & more" }
        - { image: diagram.png, title: Diagram }
      legend: { entries: [{ name: Lesion, color: [1, 0, 0] }] }
`,
  );
  const out = join(dir, 'mixed');
  const r = await wbplay(['run', pb, '--out', out, '--quiet'], dir);
  assert.equal(r.code, 0, r.stderr);
  const image = await pixels(join(out, 'mixed.png'));
  assert.equal(image.width, 700, '3.5 inches at 200 dpi');
  const svg = await readFile(join(out, 'mixed.svg'), 'utf8');
  for (const text of ['>i<', '>ii<', 'CT &lt;coronal&gt; &amp; more', '>Diagram<', '>Lesion<'])
    assert.ok(svg.includes(text), `the SVG holds ${text}`);
  // The file is fitted into the right panel, keeping its aspect: its middle is the file's green.
  const right = [...svg.matchAll(/<image x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"/g)][1]!;
  const [x, y, w, h] = right.slice(1).map(Number) as [number, number, number, number];
  const mid = ((y + (h >> 1)) * image.width + x + (w >> 1)) * 4;
  assert.deepEqual([...image.data.subarray(mid, mid + 3)], [0, 200, 0]);
});
