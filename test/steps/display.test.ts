// Display properties from playbooks on the reference workbench: level windows by preset and by
// value, colour maps, interpolation, per-window values through window_node, any property, and
// expect_state reading them back; what the workbench would silently ignore fails the step.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';

let dir = '';
let demo = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-display-'));
  demo = join(dir, 'demo');
  await writeDemoData(demo);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(name: string, steps: string): Promise<{ code: number | null; output: string }> {
  const path = join(dir, `${name}.yaml`);
  await writeFile(
    path,
    `version: 1
vars: { data: ${JSON.stringify(demo)} }
steps:
${steps}`,
  );
  const r = await wbplay(['run', path, '--out', join(dir, name), '--reporter', 'line'], dir);
  return { code: r.code, output: `${r.stdout}\n${r.stderr}` };
}

test('set and load give level windows, colour maps, interpolation and properties; expect_state reads them back', async () => {
  const r = await run(
    'display',
    `  - load:
      file: "\${data}/ct.nrrd"
      as: ct
      level_window: Liver
      colormap: Legacy Rainbow Color
      interpolation: { texture: true, reslice: linear }
      properties: { volumerendering: true, study.weight: 0.5, study.count: 3 }
  - reinit
  - window_node: { window: stdmulti/axial, node: ct, level_window: { level: 40, window: 80 }, colormap: Grayscale }
  - expect_state:
      of: node:ct
      equals:
        level_window: Liver
        colormap: Legacy Rainbow Color
        interpolation: { texture: true, reslice: linear }
        properties: { volumerendering: true, study.weight: 0.5, study.count: 3, Image Rendering.Mode: LookupTable_LevelWindow_Color }
  - expect_state:
      of: node:ct
      window: stdmulti/axial
      equals: { level_window: { level: 40, window: 80 }, colormap: Grayscale }
  - set: { node: ct, level_window: { level: 50, window: 350 }, properties: { levelwindow_note: wide } }
  - expect_state: { of: node:ct, equals: { level_window: { level: 50, window: 350 }, properties: { levelwindow: { CurrentSettings: { Level: 50, Window: 350 } } } } }
`,
  );
  assert.equal(r.code, 0, r.output);
});

test('an expectation of another level window fails with the numbers that differ', async () => {
  const r = await run(
    'mismatch',
    `  - load: { file: "\${data}/ct.nrrd", as: ct, level_window: Liver }
  - expect_state: { of: node:ct, equals: { level_window: Lung } }
`,
  );
  assert.notEqual(r.code, 0);
  assert.match(r.output, /level_window\.level: expected -200, got 30/);
  assert.match(r.output, /level_window\.window: expected 500, got 400/);
});

test('what MITK would not show is an error: an outline of a grey image, a colour map on a binary one', async () => {
  const outline = await run(
    'outline',
    `  - load: { file: "\${data}/ct.nrrd", as: ct, outline: true }
`,
  );
  assert.notEqual(outline.code, 0);
  assert.match(outline.output, /not a binary image: MITK draws outlines of binary images only/);
  const binary = await run(
    'binary',
    `  - load: { file: "\${data}/ct.nrrd", as: ct, properties: { binary: true } }
  - set: { node: ct, colormap: Grayscale }
`,
  );
  assert.notEqual(binary.code, 0);
  assert.match(binary.output, /is a binary image: MITK draws it in its colour through its binary table/);
});

test('a value the workbench keeps at its old class fails the step and says how to write it', async () => {
  const r = await run(
    'kept',
    `  - load: { file: "\${data}/ct.nrrd", as: ct, properties: { study.weight: 0.5 } }
  - set: { node: ct, properties: { study.weight: 2 } }
`,
  );
  assert.notEqual(r.code, 0);
  assert.match(r.output, /did not apply study\.weight \(sent 2, still 0\.5\)/);
  assert.match(r.output, /\{type: FloatProperty, value: …\}/);
});

test("a figure's colour bar shows the node's colour map over the level window of the window asked for", async () => {
  const r = await run(
    'bar',
    `  - load: { file: "\${data}/ct.nrrd", as: ct, colormap: Legacy Rainbow Color, level_window: Liver }
  - reinit
  - window_node: { window: stdmulti/coronal, node: ct, level_window: Lung }
  - figure:
      save: \${out}/bar.png
      width: 600px
      panels: [{ window: stdmulti/axial }, { window: stdmulti/coronal }]
      legend: { color_bars: [ct, { node: ct, label: Lung window, window: stdmulti/coronal }] }
`,
  );
  assert.equal(r.code, 0, r.output);
  const svg = await readFile(join(dir, 'bar', 'bar.svg'), 'utf8');
  // MITK's rainbow table runs from blue to red; the Liver window from -170 to 230, the Lung one
  // from -450 to 50.
  assert.match(svg, /<stop offset="0" stop-color="#0000ff"\/>.*<stop offset="1" stop-color="#ff0000"\/>/);
  assert.match(svg, />ct<\/text>\n<text [^>]*>\u2212170<\/text>\n(?:.*\n){0,2}<text [^>]*>230</);
  assert.match(svg, />Lung window<\/text>\n<text [^>]*>\u2212450<\/text>\n(?:.*\n){0,2}<text [^>]*>50</);
  // A long label makes the bar shorter; nothing runs past the figure's edge.
  const width = Number(/<svg [^>]*width="(\d+)"/.exec(svg)?.[1]);
  const lastX = Number(/<text x="([\d.]+)"[^>]*>50<\/text>/.exec(svg)?.[1]);
  assert.ok(lastX > 0 && lastX + 40 <= width, `the Lung window's 50 at x=${lastX} in a figure ${width} wide`);
});
