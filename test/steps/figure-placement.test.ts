// Corner parts of a panel (insets, the scale bar, the panel letter) and the annotations anchored
// in the patient are placed so that none covers another, on the reference workbench: a scale bar
// never lands inside an inset (it would read at the inset's scale), and an inset goes round the
// marks and the region it magnifies. Where no corner is free the step says what stays covered.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Corner } from '../../src/figure/annotation-kinds.js';
import { chooseCorner, cornersFrom, placementNotice } from '../../src/figure/placement.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { pixels, wbplay } from '../helpers/cohort.js';

let dir = '';
let demo = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-placement-'));
  demo = join(dir, 'demo');
  await writeDemoData(demo);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PANEL = 400;
// Cyan: the inset frame is yellow by default.
const CYAN = [0, 255, 255] as const;

/** A one-panel figure of the axial window, 400 pixels square, with the panel's own lines. */
async function figure(
  name: string,
  panel: string,
): Promise<{ stdout: string; image: Awaited<ReturnType<typeof pixels>> }> {
  const path = join(dir, `${name}.yaml`);
  await writeFile(
    path,
    `version: 1
steps:
  - load: { file: ${JSON.stringify(join(demo, 'ct.nrrd'))}, as: ct }
  - load: { file: ${JSON.stringify(join(demo, 'tumour-label.nrrd'))}, as: tumour, parent: ct }
  - reinit: { nodes: [ct] }
  - position: [56, 52, 36]
  - figure:
      save: \${out}/${name}.png
      width: ${PANEL}px
      margin: 0px
      gap: 0px
      panels:
        - window: stdmulti/axial
${panel
  .trim()
  .split('\n')
  .map((l) => `          ${l}`)
  .join('\n')}
`,
  );
  const out = join(dir, name);
  const r = await wbplay(['run', path, '--out', out], dir);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return { stdout: r.stdout, image: await pixels(join(out, `${name}.png`)) };
}

/** The box of the pure cyan pixels (the scale bar and its label), in the panel's pixels. */
function cyanBox(image: Awaited<ReturnType<typeof pixels>>): {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  n: number;
} {
  const b = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity, n: 0 };
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4;
      if (CYAN.every((c, k) => image.data[i + k] === c)) {
        b.n++;
        b.minX = Math.min(b.minX, x);
        b.maxX = Math.max(b.maxX, x);
        b.minY = Math.min(b.minY, y);
        b.maxY = Math.max(b.maxY, y);
      }
    }
  return b;
}

test('with the inset bottom-right the scale bar moves to a free corner, and the step says where and why', async () => {
  const { stdout, image } = await figure(
    'inset-bottom-right',
    `scale_bar: { length: 20, color: [0, 1, 1] }
annotations:
  - inset: { at: [56, 52, 36], size: 18, zoom: 3, corner: bottom-right }`,
  );
  assert.match(
    stdout,
    /notice: the scale bar of panel 1 is drawn bottom-left, not bottom-right, where it would cover inset 1/,
  );
  const bar = cyanBox(image);
  assert.ok(bar.n > 0, 'the scale bar is drawn');
  assert.ok(bar.maxX < PANEL / 2 && bar.minY > PANEL / 2, `the scale bar is bottom-left: ${JSON.stringify(bar)}`);
});

test('`scale_bar` takes a corner', async () => {
  const { stdout, image } = await figure(
    'scale-bar-top-right',
    'scale_bar: { length: 20, color: [0, 1, 1], corner: top-right }',
  );
  assert.doesNotMatch(stdout, /scale bar of panel 1 is drawn/);
  const bar = cyanBox(image);
  assert.ok(bar.minX > PANEL / 2 && bar.maxY < PANEL / 2, `the scale bar is top-right: ${JSON.stringify(bar)}`);
});

test('a scale bar asked for top-left, where the panel letter is, goes to the nearest free corner', async () => {
  const { stdout, image } = await figure(
    'scale-bar-on-letter',
    'scale_bar: { length: 20, color: [0, 1, 1], corner: top-left }',
  );
  assert.match(
    stdout,
    /the scale bar of panel 1 is drawn top-right, not top-left, where it would cover the panel letter/,
  );
  const bar = cyanBox(image);
  assert.ok(bar.minX > PANEL / 2 && bar.maxY < PANEL / 2, `the scale bar is top-right: ${JSON.stringify(bar)}`);
});

test('an inset goes round a mark in its corner and round the region it magnifies', () => {
  const box = (c: Corner): { x: number; y: number; width: number; height: number } => ({
    x: c.endsWith('left') ? 5 : 295,
    y: c.startsWith('top') ? 5 : 295,
    width: 100,
    height: 100,
  });
  const circle = { name: 'circle 1', rect: { x: 320, y: 20, width: 30, height: 30 } };
  const region = { name: 'the region it magnifies', rect: { x: 10, y: 10, width: 30, height: 30 } };
  const choice = chooseCorner('top-right', box, [circle, region]);
  assert.deepEqual(choice, { corner: 'bottom-right', covers: [] });
  assert.equal(
    placementNotice('panel 1, inset 1', 'top-right', choice, ['circle 1']),
    'panel 1, inset 1 is drawn bottom-right, not top-right, where it would cover circle 1',
  );
  assert.deepEqual(cornersFrom('bottom-left'), ['bottom-left', 'bottom-right', 'top-left', 'top-right']);
  const everywhere = { name: 'circle 2', rect: { x: 0, y: 0, width: 400, height: 400 } };
  const stuck = chooseCorner('top-right', box, [everywhere]);
  assert.deepEqual(stuck, { corner: 'top-right', covers: ['circle 2'] });
  assert.match(
    placementNotice('panel 1, inset 1', 'top-right', stuck, []) ?? '',
    /covers circle 2 in every corner; it stays top-right/,
  );
});
