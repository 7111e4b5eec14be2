// Annotations anchored in the patient, on the reference workbench: each figure puts the window
// plain in one panel and annotated in the next, so the tumour's own pixels (the demo label's
// colour, 255/77/51) say where its centre [56, 52, 36] is drawn, and the annotations must land
// there: a circle centred on it at two zooms and twice as wide at twice the zoom, an arrow's tip on
// it, a ruler of 30 mm as long as 30 mm are, on an axial camera, an oblique one and the 3D window.
// Then the files: the SVG parsed as XML with its vector elements, the PDF in poppler and the
// TIFF in ImageMagick (by absolute path: /usr/local/bin/convert is not ImageMagick on every
// machine); a point off the slice is a notice, an unknown field an error at its line.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { readResolution } from '../../src/image/png-resolution.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { differingPixels, pixels, wbplay } from '../helpers/cohort.js';
import { deadPort } from '../helpers/net.js';

const run = promisify(execFile);
type Image = Awaited<ReturnType<typeof pixels>>;

let dir = '';
let demo = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-annotations-'));
  demo = join(dir, 'demo');
  await writeDemoData(demo);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TUMOUR = [255, 77, 51] as const;
const MAGENTA = [255, 0, 255] as const;
const YELLOW = [255, 255, 0] as const;
const PANEL = 400;
/** 0.35 mm, the default line width, at the figures' 300 dpi. */
const LINE = (0.35 / 25.4) * 300;

/** A figure of one window twice, plain and annotated, 400×400 pixels each. */
function pair(save: string, window: string, annotations: string, extra = ''): string {
  return `  - figure:
      save: \${out}/${save}
      width: ${2 * PANEL}px
      margin: 0px
      gap: 0px
      letters: none
      formats: [png, svg, pdf, tiff]
      panels:
        - { window: ${window} }
        - window: ${window}${extra}
          annotations:
${annotations
  .trim()
  .split('\n')
  .map((l) => `            ${l.trim()}`)
  .join('\n')}
`;
}

const MARKS = `
- circle: { at: [56, 52, 36], radius: 7, color: [1, 0, 1] }
- arrow: { to: [56, 52, 36], color: [0, 1, 1] }
- ruler: { from: [26, 75, 36], to: [56, 75, 36], color: [1, 1, 0] }
`;

async function runPlaybook(name: string, steps: string): Promise<{ out: string; stdout: string }> {
  const path = join(dir, `${name}.yaml`);
  await writeFile(
    path,
    `version: 1
steps:
  - load: { file: ${JSON.stringify(join(demo, 'tumour-label.nrrd'))}, as: tumour }
  - reinit
  - position: [56, 52, 36]
${steps}`,
  );
  const out = join(dir, name);
  const r = await wbplay(['run', path, '--out', out], dir);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return { out, stdout: r.stdout };
}

interface Blob {
  n: number;
  x: number;
  y: number;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** The pixels of one colour in one panel (within `slack` per channel), in the panel's coordinates. */
function blob(image: Image, panel: number, colour: readonly number[], slack = 0): Blob {
  const b = { n: 0, x: 0, y: 0, minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
  for (let y = 0; y < image.height; y++) {
    for (let x = panel * PANEL; x < (panel + 1) * PANEL; x++) {
      const i = (y * image.width + x) * 4;
      if (colour.every((c, k) => Math.abs(image.data[i + k]! - c) <= slack)) {
        const px = x - panel * PANEL + 0.5;
        b.n++;
        b.x += px;
        b.y += y + 0.5;
        b.minX = Math.min(b.minX, px - 0.5);
        b.maxX = Math.max(b.maxX, px + 0.5);
        b.minY = Math.min(b.minY, y);
        b.maxY = Math.max(b.maxY, y + 1);
      }
    }
  }
  return { ...b, x: b.x / b.n, y: b.y / b.n };
}

/**
 * The arrow's tip: coming from up-left, the pixel furthest down and right that the cyan arrow
 * made greener and bluer than the plain panel beside it (cyan raises both over the tumour, the
 * ring and the background alike; the yellow ruler and the magenta ring do not), so even the
 * tip's thinly covered pixel counts.
 */
function tip(image: Image): { x: number; y: number } {
  let best = { x: 0, y: 0, s: -Infinity };
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < PANEL; x++) {
      const plain = (y * image.width + x) * 4;
      const marked = plain + PANEL * 4;
      const cyan =
        image.data[marked + 1]! - image.data[plain + 1]! > 16 && image.data[marked + 2]! - image.data[plain + 2]! > 16;
      if (cyan && x + y > best.s) best = { x: x + 0.5, y: y + 0.5, s: x + y };
    }
  }
  return best;
}

function near(actual: { x: number; y: number }, expected: { x: number; y: number }, what: string, within = 2): void {
  const d = Math.hypot(actual.x - expected.x, actual.y - expected.y);
  assert.ok(
    d <= within,
    `${what} at (${actual.x.toFixed(1)}, ${actual.y.toFixed(1)}), the tumour's centre at (${expected.x.toFixed(1)}, ${expected.y.toFixed(1)}): ${d.toFixed(2)} px apart`,
  );
}

/**
 * A ring's diameter along the row through its middle: the mean of its outer and inner widths,
 * so the line's width and its smoothed edges cancel.
 */
function ringDiameter(image: Image, y: number): number {
  const magenta = (x: number): boolean => {
    const i = (y * image.width + PANEL + x) * 4;
    return image.data[i]! > 127 && image.data[i + 1]! < 128 && image.data[i + 2]! > 127;
  };
  const xs = Array.from({ length: PANEL }, (_, x) => x).filter(magenta);
  const outerLeft = xs[0]!;
  const outerRight = xs[xs.length - 1]! + 1;
  let innerLeft = outerLeft;
  while (magenta(innerLeft)) innerLeft++;
  let innerRight = outerRight - 1;
  while (magenta(innerRight)) innerRight--;
  return (outerRight - outerLeft + (innerRight + 1 - innerLeft)) / 2;
}

/**
 * Checks a figure's circle and arrow against the tumour's pixels; gives the circle's diameter.
 * The circle's middle is its bounding box's: the arrow crosses its ring up-left, away from the
 * ring's extremes, where it would take pixels off a centroid.
 */
function onTheTumour(image: Image, what: string): number {
  const tumour = blob(image, 0, TUMOUR);
  assert.ok(tumour.n > 50, `${what}: the tumour shows (${tumour.n} pixels)`);
  const circle = blob(image, 1, MAGENTA, 40);
  assert.ok(circle.n > 50, `${what}: the circle is drawn (${circle.n} pixels)`);
  const middle = { x: (circle.minX + circle.maxX) / 2, y: (circle.minY + circle.maxY) / 2 };
  near(middle, tumour, `${what}: the circle's centre`);
  near(tip(image), tumour, `${what}: the arrow's tip`);
  return ringDiameter(image, Math.floor(middle.y));
}

test('a circle, an arrow and a ruler land on the tumour at two zooms of an axial window', async () => {
  const { out } = await runPlaybook(
    'axial',
    `  - camera: { window: stdmulti/axial, parallel_scale: 40 }
${pair('far.png', 'stdmulti/axial', MARKS)}  - camera: { window: stdmulti/axial, parallel_scale: 20 }
${pair('near.png', 'stdmulti/axial', MARKS)}`,
  );
  const far = await pixels(join(out, 'far.png'));
  const near2 = await pixels(join(out, 'near.png'));
  const wide = onTheTumour(far, 'parallel_scale 40');
  const wider = onTheTumour(near2, 'parallel_scale 20');
  assert.ok(
    Math.abs(wider - 2 * wide) <= 2,
    `the circle is ${wide} px wide at parallel_scale 40 and ${wider} px at 20`,
  );
  // 7 mm of radius at 400 pixels for 80 mm.
  const expected = (2 * 7 * PANEL) / (2 * 40);
  assert.ok(Math.abs(wide - expected) <= 1, `a 7 mm circle is ${wide} px wide, expected ${expected}`);

  // The ruler: 30 mm are 30 × 400 / 80 = 150 pixels at parallel_scale 40, between the ticks' middles.
  const ruler = blob(far, 1, YELLOW, 40);
  assert.ok(Math.abs(ruler.maxX - ruler.minX - LINE - 150) <= 2, `the ruler spans ${ruler.maxX - ruler.minX} px`);
  const svg = await readFile(join(out, 'far.svg'), 'utf8');
  assert.match(svg, />30\.0 mm</, 'the ruler says 30.0 mm');
});

test('on an oblique camera the annotations stay on the tumour', async () => {
  const tilt = [0.25, -0.15, 1];
  const n = Math.hypot(...tilt);
  const focal = [50, 48, 40];
  const position = focal.map((f, i) => f - (1000 * tilt[i]!) / n);
  const { out } = await runPlaybook(
    'oblique',
    `  - camera: { window: stdmulti/axial, focal_point: [${focal.join(', ')}], position: [${position.join(', ')}], view_up: [0.5, -0.866, 0], parallel_scale: 30 }
${pair('oblique.png', 'stdmulti/axial', MARKS)}`,
  );
  onTheTumour(await pixels(join(out, 'oblique.png')), 'oblique');
  assert.match(await readFile(join(out, 'oblique.svg'), 'utf8'), />30\.0 mm</, 'the ruler says 30.0 mm');
});

test('in the 3D window the annotations land on the tumour through the perspective camera', async () => {
  // The ruler lies below the tumour here: seen from the front, one at its height would cross the arrow's tip.
  const { out } = await runPlaybook('three-d', pair('3d.png', 'stdmulti/3d', MARKS.replaceAll('75, 36]', '75, 5]')));
  const image = await pixels(join(out, '3d.png'));
  onTheTumour(image, '3D');
  assert.match(await readFile(join(out, '3d.svg'), 'utf8'), />30\.0 mm</, 'the ruler says 30.0 mm');
});

test('in an MxN cell of another shape than its panel the circle is an ellipse, as the tumour is', async () => {
  // One cell fills the MxN canvas (1024×768); the square panel squeezes it across.
  const { out } = await runPlaybook(
    'mxn',
    `  - layout: { rows: [{ name: t, nodes: [tumour] }], columns: [axial], at: [56, 52, 36] }
${pair('mxn.png', 'mxn/mxn__t_axial', MARKS, '\n          scale_bar: { length: 30, color: [1, 0.5, 0] }')}`,
  );
  const image = await pixels(join(out, 'mxn.png'));
  onTheTumour(image, 'MxN cell');
  const tumour = blob(image, 0, TUMOUR);
  const shape = (tumour.maxX - tumour.minX) / (tumour.maxY - tumour.minY);
  const svg = await readFile(join(out, 'mxn.svg'), 'utf8');
  const ellipse = /<ellipse cx="[\d.]+" cy="[\d.]+" rx="([\d.]+)" ry="([\d.]+)"/.exec(svg);
  assert.ok(ellipse, 'the circle of the patient is an <ellipse> in this panel');
  const drawn = Number(ellipse[1]) / Number(ellipse[2]);
  assert.ok(Math.abs(drawn - 0.75) < 0.01, `rx/ry ${drawn}: the 768/1024 of the window's shape`);
  assert.ok(
    Math.abs(shape - drawn) < 0.1,
    `the tumour is ${shape.toFixed(2)} as wide as high, the ellipse ${drawn.toFixed(2)}`,
  );
  // A 30 mm scale bar is as long as the 30 mm ruler: both measured across the squeezed panel.
  const rect = /<rect x="[\d.]+" y="[\d.]+" width="(\d+)" height="\d+" fill="#ff8000"/.exec(svg);
  assert.ok(rect, 'the scale bar is a rect');
  const bar = Number(rect[1]);
  const line = /<polyline points="([\d.]+),[\d.]+ ([\d.]+),[\d.]+"[^>]*stroke="#ffff00"/.exec(svg);
  assert.ok(line, 'the ruler is a polyline');
  const ruler = Number(line[2]) - Number(line[1]);
  assert.ok(Math.abs(bar - ruler) <= 1, `the scale bar is ${bar} px, the ruler ${ruler} px`);
});

/** A tool of the field the test reads the files with; missing, it skips outside CI and fails in CI. */
function tool(t: TestContext, path: string): boolean {
  if (existsSync(path)) return true;
  assert.notEqual(process.env.CI, 'true', `${path} is not installed (CI installs it: .ci/run)`);
  t.skip(`${path} is not installed on this machine; CI installs it`);
  return false;
}

test('the files: SVG with vector annotations parses as XML, PDF in poppler with its text and subset fonts, TIFF in ImageMagick with the PNG pixels and dpi', async (t) => {
  const { out } = await runPlaybook(
    'files',
    pair(
      'files.png',
      'stdmulti/axial',
      `${MARKS}
- text: { at: [40, 30, 36], text: trunk }
- arrow: { to: [56, 52, 36], from: down-left, label: tumour }
- inset: { at: [56, 52, 36], size: 20, zoom: 3, corner: bottom-left }`,
    ),
  );
  const png = join(out, 'files.png');
  const image = await pixels(png);
  const svg = await readFile(join(out, 'files.svg'), 'utf8');
  for (const element of ['<circle ', '<polygon ', '<polyline ', '>trunk<', '>tumour<', '>30.0 mm<'])
    assert.ok(svg.includes(element), `the SVG holds ${element}`);
  assert.equal((svg.match(/<image /g) ?? []).length, 3, 'two panels and the inset');
  assert.ok(svg.length < 300_000, `the SVG is ${svg.length} bytes, its fonts a subset`);
  if (tool(t, '/usr/bin/python3')) {
    const parsed = await run('/usr/bin/python3', [
      '-c',
      'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); print(sum(1 for e in r.iter() if e.tag.endswith("}circle")))',
      join(out, 'files.svg'),
    ]);
    assert.equal(parsed.stdout.trim(), '1', 'one <circle> element');
  }

  const pdf = join(out, 'files.pdf');
  if (tool(t, '/usr/bin/pdftoppm')) {
    await run('/usr/bin/pdftoppm', ['-r', '300', '-png', '-singlefile', pdf, join(out, 'pdf-page')]);
    const page = await pixels(join(out, 'pdf-page.png'));
    assert.deepEqual([page.width, page.height], [image.width, image.height], 'the page is the figure at its dpi');
    const text = (await run('/usr/bin/pdftotext', [pdf, '-'])).stdout;
    for (const word of ['30.0 mm', 'trunk', 'tumour']) assert.ok(text.includes(word), `the PDF's text has ${word}`);
    const fonts = (await run('/usr/bin/pdffonts', [pdf])).stdout.trim().split('\n').slice(2);
    assert.ok(fonts.length > 0, 'the PDF names its fonts');
    for (const line of fonts)
      assert.match(line, /^[A-Z]{6}\+DejaVuSans\S* .* yes yes yes /, `embedded subset: ${line}`);
  }

  const tiff = join(out, 'files.tiff');
  if (tool(t, '/usr/bin/identify')) {
    const facts = (await run('/usr/bin/identify', ['-format', '%w %h %x %y %U %C', tiff])).stdout.trim();
    assert.equal(facts, `${image.width} ${image.height} 300 300 PixelsPerInch Zip`);
    await run('/usr/bin/convert', [tiff, join(out, 'from-tiff.png')]);
    assert.equal(differingPixels(await pixels(join(out, 'from-tiff.png')), image), 0, "the TIFF has the PNG's pixels");
    assert.equal(Math.round(readResolution(await readFile(png))!.x), 300);
  }
});

test('a point off the slice shown is a notice naming the annotation and the distance; so is an inset held to half the panel', async () => {
  const { out, stdout } = await runPlaybook(
    'off-slice',
    `  - figure:
      save: \${out}/off.png
      width: 50mm
      panels:
        - window: stdmulti/axial
          annotations:
            - circle: { at: [56, 52, 60], radius: 3 }
            - arrow: { to: [56, 52, 36], label: tumour }
            - text: { at: [500, 52, 36], text: far }
            - inset: { at: [56, 52, 36], size: 40, zoom: 8 }
`,
  );
  assert.match(
    stdout,
    /panel 1, circle 1: \[56, 52, 60\] lies 25 mm from the middle of the slice shown \(2\.5 mm thick\)/,
  );
  assert.match(stdout, /panel 1, text 1 \("far"\): \[500, 52, 36\] lies \d+ pixels outside the panel/);
  assert.doesNotMatch(stdout, /arrow 1[^\n]*lies/, 'the arrow is on the slice');
  // Half the panel in every corner covers the marks near the tumour: the step says so.
  assert.match(
    stdout,
    /panel 1, inset 1 covers circle 1, arrow 1 \("tumour"\) and the region it magnifies in every corner/,
  );
  assert.match(
    stdout,
    /panel 1, inset 1: zoom 8 would make the inset larger than half the panel; it shows \d\.\d times/,
  );
  const report = await readFile(join(out, 'report.json'), 'utf8');
  assert.match(report, /lies 25 mm from the middle of the slice shown/, 'the notice is on the step in the report');
});

test('bad annotations are playbook errors at their line, before any workbench call', async () => {
  const pb = join(dir, 'bad-annotations.yaml');
  await writeFile(
    pb,
    `version: 1
steps:
  - figure:
      save: \${out}/bad.png
      width: 50mm
      formats: [png, eps]
      panels:
        - window: stdmulti/axial
          annotations:
            - arrow: { to: [1, 2, 3], colour: [1, 0, 0] }
            - circle: { at: [1, 2, 3], radius: 2 }
              ruler: { from: [1, 2, 3], to: [4, 5, 6] }
            - inset: { at: [1, 2, 3], size: 10, zoom: 20 }
`,
  );
  const r = await wbplay(['run', pb, '--url', `http://127.0.0.1:${await deadPort()}`, '--out', join(dir, 'bad')], dir);
  assert.equal(r.code, 2, r.stderr);
  for (const [line, words] of [
    [6, 'eps'],
    [10, 'colour'],
    [12, 'two kinds in one item'],
    [13, 'zoom'],
  ] as const)
    assert.match(r.stderr, new RegExp(`bad-annotations\\.yaml:${line}:\\d+`), `an error at line ${line} (${words})`);
  assert.match(r.stderr, /colour/);
  assert.doesNotMatch(r.stderr, /unreachable|ECONNREFUSED/i);
});
