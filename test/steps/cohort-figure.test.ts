// The cohort figure of playbooks/cohort.yaml: four demo studies in rows by three captures in
// columns, made after the run on the reference workbench and again by `wbplay cohort-figure`
// from the output folder alone. Letters and row labels in their cells, a 20 mm scale bar as long
// as a 20 mm ruler placed through the camera each capture recorded, the same bytes on a rerun,
// the PDF read by poppler and the TIFF by ImageMagick; the choices of cases and their errors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readCaptureView } from '../../src/figure/capture-view.js';
import { projectPoint } from '../../src/figure/projection.js';
import { readPngText } from '../../src/image/png-text.js';
import { readResolution } from '../../src/image/png-resolution.js';
import { writeDemoData, type StudyRow } from '../../src/sim/demo-data.js';
import { differingPixels, pixels, wbplay } from '../helpers/cohort.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(root, 'playbooks', 'cohort.yaml');
const STUDIES = ['study-001', 'study-002', 'study-003', 'study-004'];

let dir = '';
let data = '';
let out = '';
let studies: StudyRow[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-cohort-figure-'));
  data = join(dir, 'data');
  ({ studies } = await writeDemoData(data, { cohort: 4 }));
  out = join(dir, 'out');
  const r = await wbplay(['run', EXAMPLE, '--out', out, '--quiet'], dir, { WBPLAY_COHORT: data });
  assert.equal(r.code, 0, r.stderr);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface SvgText {
  x: number;
  y: number;
  text: string;
}

function texts(svg: string): SvgText[] {
  return [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)<\/text>/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    text: m[3]!,
  }));
}

function images(svg: string): Array<{ x: number; y: number; width: number; height: number }> {
  return [...svg.matchAll(/<image x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    width: Number(m[3]),
    height: Number(m[4]),
  }));
}

test('four studies by three captures: a letter in the top-left of every cell, each row labelled left of it with its study', async () => {
  const svg = await readFile(join(out, 'cases-figure.svg'), 'utf8');
  const cells = images(svg);
  assert.equal(cells.length, 12, 'one image per study and capture');
  const shown = texts(svg);
  for (const [i, cell] of cells.entries()) {
    const letter = String.fromCharCode(65 + i);
    const t = shown.find((s) => s.text === letter);
    assert.ok(t, `the letter ${letter} is drawn`);
    assert.ok(t.x > cell.x && t.x < cell.x + cell.width / 4, `${letter} is at the left of its cell`);
    assert.ok(t.y > cell.y && t.y < cell.y + cell.height / 4, `${letter} is at the top of its cell`);
  }
  for (const [row, name] of STUDIES.entries()) {
    const label = shown.find((s) => s.text === name);
    assert.ok(label, `${name} labels a row`);
    const first = cells[row * 3]!;
    assert.ok(label.x < first.x, `${name} is left of its row`);
    assert.ok(label.y > first.y && label.y < first.y + first.height, `${name} is beside row ${row + 1}`);
  }
  for (const heading of ['Axial', 'Coronal', 'Sagittal']) {
    const h = shown.find((s) => s.text === heading);
    assert.ok(h && h.y < cells[0]!.y, `${heading} heads a column`);
  }
  const png = await readFile(join(out, 'cases-figure.png'));
  const facts = readPngText(png);
  const cases = JSON.parse(facts['wbplay:cases'] ?? '[]') as Array<{ case: string; captures: string[] }>;
  assert.deepEqual(
    cases.map((c) => c.case),
    STUDIES,
    'the provenance names every case',
  );
  assert.deepEqual(cases[0]!.captures, ['study-001/axial.png', 'study-001/coronal.png', 'study-001/sagittal.png']);
  assert.equal(facts['wbplay:step'], 'cohort figure');
  const image = await pixels(join(out, 'cases-figure.png'));
  assert.ok(Math.abs(image.width - (183 / 25.4) * 300) <= 1, `183 mm at 300 dpi is ${image.width} pixels`);
  // The panels show the captures' pixels, not their text: no camera, no input file, no path leaks into the SVG.
  assert.doesNotMatch(svg, new RegExp(dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  const embedded = [...svg.matchAll(/data:image\/png;base64,([A-Za-z0-9+/=]+)/g)];
  assert.equal(embedded.length, 12);
  for (const m of embedded)
    assert.deepEqual(readPngText(Buffer.from(m[1]!, 'base64')), {}, 'a panel carries no text of its capture');
  assert.ok(Object.keys(readPngText(await readFile(join(out, 'study-001', 'axial.png')))).includes('wbplay:view'));
});

test('each screenshot of a window records its camera: the mm per pixel of its window when it was taken', async () => {
  const axial = await readFile(join(out, 'study-001', 'axial.png'));
  const view = readCaptureView(axial, 'axial.png');
  assert.ok(view, 'the capture carries its view');
  const { width, height } = await pixels(join(out, 'study-001', 'axial.png'));
  const scale = view.camera.parallel_scale!;
  assert.ok(scale > 0);
  assert.deepEqual(view.mm_per_pixel, [(2 * scale * view.aspect) / width, (2 * scale) / height]);
  assert.ok(view.slice, 'a 2D window records the slice it showed');
  const threeD = readCaptureView(await readFile(join(out, 'study-001', '3d.png')), '3d.png');
  assert.ok(threeD && threeD.camera.parallel_scale === null && threeD.mm_per_pixel === undefined);
});

/** The example playbook with its figure's axial column given a ruler of 20 mm through each study's tumour. */
async function rulerPlaybook(): Promise<string> {
  const text = await readFile(EXAMPLE, 'utf8');
  const ruler = `        - ruler: { from: ["\${study.tumour_x}", "\${study.tumour_y}", "\${study.tumour_z}"], to: [0, 0, 0], color: [0, 1, 1] }`;
  const replaced = text
    .replace(/^( {8}- circle: .*)$/m, ruler)
    .replace('scale_bar: 20\n', 'scale_bar: { length: 20, color: [1, 0, 1] }\n')
    .replace('"${out}/cases-figure.png"', '"${out}/ruler-figure.png"');
  assert.notEqual(replaced, text);
  return replaced;
}

test('a 20 mm scale bar is exactly as long as a 20 mm ruler placed through the capture’s recorded camera', async () => {
  // The ruler runs 20 mm to the patient's left (+x) of each study's tumour, in its axial slice.
  const template = await rulerPlaybook();
  const playbook = join(dir, 'ruler.yaml');
  await writeFile(playbook, template.replace('to: [0, 0, 0]', 'to: ["${study.tumour_x}+20", 0, 0]'));
  try {
    // A point written as a sum is not a number: the error names the study and the annotation.
    const bad = await wbplay(['cohort-figure', playbook, out], dir, { WBPLAY_COHORT: data });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /error\[BAD_VECTOR\]: `to` of ruler 1 is not three numbers for study `study-001`/);
  } finally {
    await rm(playbook, { force: true });
  }
  // The points each study needs, written into a manifest column of its own.
  const csv = (await readFile(join(data, 'studies.csv'), 'utf8')).trim().split('\n');
  const head = csv[0]!.split(',');
  const x = head.indexOf('tumour_x');
  const rows = csv.slice(1).map((line) => {
    const cells = line.split(',');
    return `${line},${(Number(cells[x]) + 20).toFixed(3)}`;
  });
  const ruled = join(dir, 'ruled');
  await writeDemoData(ruled, { cohort: 4 });
  await writeFile(join(ruled, 'studies.csv'), `${csv[0]},ruler_x\n${rows.join('\n')}\n`);
  await writeFile(
    playbook,
    template.replace('to: [0, 0, 0]', 'to: ["${study.ruler_x}", "${study.tumour_y}", "${study.tumour_z}"]'),
  );
  try {
    const r = await wbplay(['cohort-figure', playbook, out], dir, { WBPLAY_COHORT: ruled });
    assert.equal(r.code, 0, r.stderr);
  } finally {
    await rm(playbook, { force: true });
  }
  const svg = await readFile(join(out, 'ruler-figure.svg'), 'utf8');
  const bars = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="(\d+)" height="\d+" fill="#ff00ff"/g)].map((m) =>
    Number(m[1]),
  );
  // A ruler is its line and a tick across each end: the line runs across the axial panel, the ticks down it.
  const rulers = [
    ...svg.matchAll(/<polyline points="([\d.]+),([\d.]+) ([\d.]+),([\d.]+)"[^>]*stroke="#00ffff"/g),
  ].filter((m) => Math.abs(Number(m[3]) - Number(m[1])) > Math.abs(Number(m[4]) - Number(m[2])));
  assert.equal(bars.length, 4, 'a magenta scale bar in each axial cell');
  assert.equal(rulers.length, 4, 'a cyan ruler in each axial cell');
  const cells = images(svg);
  for (const [i, study] of studies.entries()) {
    const m = rulers[i]!;
    const ruler = Math.hypot(Number(m[3]) - Number(m[1]), Number(m[4]) - Number(m[2]));
    assert.ok(Math.abs(bars[i]! - ruler) <= 0.5, `${study.name}: the bar is ${bars[i]} px, the ruler ${ruler} px`);
    // The ruler's ends where the recorded camera puts the tumour and the point 20 mm beside it.
    const view = readCaptureView(await readFile(join(out, study.name, 'axial.png')), study.name)!;
    const cell = cells[i * 3]!;
    const from = projectPoint(view, [study.tumour_x, study.tumour_y, study.tumour_z], cell.width, cell.height)!;
    const to = projectPoint(view, [study.tumour_x + 20, study.tumour_y, study.tumour_z], cell.width, cell.height)!;
    const expected = Math.hypot(to.x - from.x, to.y - from.y);
    assert.ok(Math.abs(ruler - expected) < 1.5, `${study.name}: the ruler is ${ruler} px, the camera says ${expected}`);
    const mm = (2 * view.camera.parallel_scale! * view.aspect) / cell.width;
    assert.equal(bars[i], Math.round(20 / mm), `${study.name}: 20 mm at ${mm} mm per figure pixel`);
  }
});

test('the same bytes on a rerun: the run’s figure and `wbplay cohort-figure` from the output folder alone', async () => {
  const files = ['png', 'svg', 'pdf', 'tiff'].map((f) => join(out, `cases-figure.${f}`));
  const before = await Promise.all(files.map((f) => readFile(f)));
  const r = await wbplay(['cohort-figure', EXAMPLE, out], dir, { WBPLAY_COHORT: data });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /wrote the cohort figure: .*cases-figure\.png/);
  for (const [i, f] of files.entries()) assert.deepEqual(await readFile(f), before[i], `${f} has the same bytes`);
});

/** A tool of the field the test reads the files with; missing, it skips outside CI and fails in CI. */
function tool(t: TestContext, path: string): boolean {
  if (existsSync(path)) return true;
  assert.notEqual(process.env.CI, 'true', `${path} is not installed (CI installs it: .ci/run)`);
  t.skip(`${path} is not installed on this machine; CI installs it`);
  return false;
}

test('the PDF in poppler with its text, the TIFF in ImageMagick with the PNG’s pixels and dpi', async (t) => {
  const png = join(out, 'cases-figure.png');
  const image = await pixels(png);
  if (tool(t, '/usr/bin/pdftoppm')) {
    const pdf = join(out, 'cases-figure.pdf');
    await run('/usr/bin/pdftoppm', ['-r', '300', '-png', '-singlefile', pdf, join(dir, 'pdf-page')]);
    const page = await pixels(join(dir, 'pdf-page.png'));
    assert.deepEqual([page.width, page.height], [image.width, image.height], 'the page is the figure at its dpi');
    const text = (await run('/usr/bin/pdftotext', [pdf, '-'])).stdout;
    for (const word of [...STUDIES, 'Axial', 'Coronal', 'Sagittal', '20 mm', 'tumour'])
      assert.ok(text.includes(word), `the PDF's text has ${word}`);
  }
  if (tool(t, '/usr/bin/identify')) {
    const tiff = join(out, 'cases-figure.tiff');
    const facts = (await run('/usr/bin/identify', ['-format', '%w %h %x %y %U', tiff])).stdout.trim();
    assert.equal(facts, `${image.width} ${image.height} 300 300 PixelsPerInch`);
    await run('/usr/bin/convert', [tiff, join(dir, 'from-tiff.png')]);
    assert.equal(differingPixels(await pixels(join(dir, 'from-tiff.png')), image), 0, "the TIFF has the PNG's pixels");
    assert.equal(Math.round(readResolution(await readFile(png))!.x), 300);
  }
});

test('cases chosen by a review: an error naming review.json until `wbplay review` wrote it, then its representative cases', async () => {
  const text = (await readFile(EXAMPLE, 'utf8'))
    .replace(/cases: \[[^\]]*\]/, 'cases: representative')
    .replace('"${out}/cases-figure.png"', '"${out}/chosen.png"');
  const playbook = join(dir, 'chosen.yaml');
  await writeFile(playbook, text);
  try {
    const missing = await wbplay(['cohort-figure', playbook, out], dir, { WBPLAY_COHORT: data });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /has no review\.json/);
    assert.match(missing.stderr, /run `wbplay review .*` first/);
    await writeFile(
      join(out, 'review.json'),
      // As `wbplay review` writes it (the figure reads it with the review's own reader).
      JSON.stringify({
        version: 1,
        cases: Object.fromEntries(
          (
            [
              ['study-004', 'pass', true],
              ['study-001', 'fail', false],
              ['study-002', 'pass', true],
            ] as const
          ).map(([name, verdict, representative]) => [
            name,
            {
              verdict,
              representative,
              comment: '',
              tags: [],
              reviewer: 'Ana',
              time: '2026-01-01T00:00:00.000Z',
              captures: {},
            },
          ]),
        ),
      }),
    );
    const r = await wbplay(['cohort-figure', playbook, out], dir, { WBPLAY_COHORT: data });
    assert.equal(r.code, 0, r.stderr);
    const svg = await readFile(join(out, 'chosen.svg'), 'utf8');
    assert.equal(images(svg).length, 6, 'two rows of three');
    const labels = texts(svg)
      .filter((s) => s.text.startsWith('study-'))
      .map((s) => s.text);
    assert.deepEqual(labels, ['study-002', 'study-004'], 'in the order of the cohort');
  } finally {
    await rm(playbook, { force: true });
    await rm(join(out, 'review.json'), { force: true });
  }
});

test('a case name or a field that is not there is an error at its line, with the name it was meant to be', async () => {
  const text = (await readFile(EXAMPLE, 'utf8')).replace('study-003', 'study-03');
  const playbook = join(dir, 'unknown.yaml');
  await writeFile(playbook, text);
  try {
    const r = await wbplay(['validate', playbook], dir, { WBPLAY_COHORT: data });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /error\[UNKNOWN_CASE\]: no case of this playbook is named `study-03`/);
    assert.match(r.stderr, /unknown\.yaml:\d+:33/);
    assert.match(r.stderr, /did you mean `study-00[0-9]`\?/);
    await writeFile(playbook, text.replace(/cases: \[[^\]]*\]/, 'cases: { where: { tumor_x: 1 } }'));
    const field = await wbplay(['validate', playbook], dir, { WBPLAY_COHORT: data });
    assert.equal(field.code, 2);
    assert.match(field.stderr, /error\[UNKNOWN_FIELD\]: no study has the field `tumor_x`/);
    assert.match(field.stderr, /did you mean `tumour_x`\?/);
  } finally {
    await rm(playbook, { force: true });
  }
});

test('a capture at another size than its window records the window’s own shape, and its scale bar still matches a ruler', async () => {
  const playbook = join(dir, 'sized.yaml');
  await writeFile(
    playbook,
    `version: 1
vars: { out: sized }
foreach: { csv: ${JSON.stringify(join(data, 'studies.csv'))} }
cohort_figure:
  cases: [study-002]
  columns:
    - tile: "\${out}/\${study.name}/wide.png"
      scale_bar: { length: 10, color: [1, 0, 1] }
      annotations:
        - ruler: { from: ["\${study.tumour_x}", "\${study.tumour_y}", "\${study.tumour_z}"], to: [0, 0, 0], color: [0, 1, 1] }
  save: "\${out}/sized.png"
  width: 60mm
steps:
  - load: { file: "\${study.path}/ct.nrrd", as: ct }
  - reinit: { nodes: [ct] }
  - position: ["\${study.tumour_x}", "\${study.tumour_y}", "\${study.tumour_z}"]
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}/native.png" }
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}/wide.png", width: 400, height: 200 }
`.replace('to: [0, 0, 0]', 'to: ["${study.tumour_x}", 0, "${study.tumour_z}"]'),
  );
  const r = await wbplay(['run', playbook, '--out', join(dir, 'sized'), '--quiet'], dir);
  assert.equal(r.code, 0, r.stderr);
  const native = await pixels(join(dir, 'sized', 'study-002', 'native.png'));
  const view = readCaptureView(await readFile(join(dir, 'sized', 'study-002', 'wide.png')), 'wide.png')!;
  assert.equal(view.aspect, native.width / native.height, "the window's shape, not the 2:1 of the capture");
  const scale = view.camera.parallel_scale!;
  assert.deepEqual(view.mm_per_pixel, [(2 * scale * view.aspect) / 400, (2 * scale) / 200]);
  // The ruler runs from the tumour down the patient's y axis to y = 0: up the axial panel, squeezed as the capture is.
  const svg = await readFile(join(dir, 'sized', 'sized.svg'), 'utf8');
  const bar = Number(/<rect x="[\d.]+" y="[\d.]+" width="(\d+)" height="\d+" fill="#ff00ff"/.exec(svg)![1]);
  const [cell] = images(svg);
  const study = studies.find((s) => s.name === 'study-002')!;
  const across = (2 * scale * view.aspect) / cell!.width;
  assert.equal(bar, Math.round(10 / across), `10 mm at ${across} mm per figure pixel across`);
  const line = [...svg.matchAll(/<polyline points="([\d.]+),([\d.]+) ([\d.]+),([\d.]+)"[^>]*stroke="#00ffff"/g)].find(
    (m) => Math.abs(Number(m[4]) - Number(m[2])) > Math.abs(Number(m[3]) - Number(m[1])),
  )!;
  const down = (2 * scale) / cell!.height;
  const drawn = Math.abs(Number(line[4]) - Number(line[2]));
  assert.ok(
    Math.abs(drawn - study.tumour_y / down) < 1,
    `the ruler is ${drawn} px, ${study.tumour_y} mm at ${down} mm/px`,
  );
});

test('shards merged by merge-reports: wbplay cohort-figure finds the captures in the shards’ folders and draws the same pixels', async () => {
  for (const [i, spec] of ['1/2', '2/2'].entries()) {
    const r = await wbplay(['run', EXAMPLE, '--shard', spec, '--out', join(dir, `s${i + 1}`), '--quiet'], dir, {
      WBPLAY_COHORT: data,
    });
    assert.equal(r.code, 0, r.stderr);
  }
  const merged = await wbplay(['merge-reports', 's1', 's2', '--out', 'merged'], dir);
  assert.equal(merged.code, 0, merged.stderr);
  assert.ok(!existsSync(join(dir, 'merged', 'study-001', 'axial.png')), 'the captures stay in the shards');
  const again = await wbplay(['cohort-figure', EXAMPLE, join(dir, 'merged')], dir, { WBPLAY_COHORT: data });
  assert.equal(again.code, 0, again.stderr);
  const whole = await pixels(join(out, 'cases-figure.png'));
  const fromShards = await pixels(join(dir, 'merged', 'cases-figure.png'));
  assert.equal(differingPixels(whole, fromShards), 0);
  // Its provenance names each capture where it lies, in the shard that took it.
  const facts = readPngText(await readFile(join(dir, 'merged', 'cases-figure.png')));
  const cases = JSON.parse(facts['wbplay:cases'] ?? '[]') as Array<{ case: string; captures: string[] }>;
  assert.deepEqual(
    cases.map((c) => c.case),
    STUDIES,
  );
  for (const c of cases)
    for (const capture of c.captures) assert.match(capture, new RegExp(`^\\.\\./s[12]/${c.case}/\\w+\\.png$`));
});
