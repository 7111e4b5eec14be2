import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { drawFigure, layoutFigure } from '../../src/figure/compose.js';
import { gridGeometry, isGeometryProblem, MIN_PANEL, type GridSpec } from '../../src/figure/geometry.js';
import { lengthInPixels, pointsInPixels } from '../../src/figure/length.js';
import { segmentationLabels } from '../../src/figure/segmentation-labels.js';
import { figureSvg } from '../../src/figure/svg.js';
import { decodePng } from '../../src/image/png-decode.js';
import { encodeRenderPng } from '../../src/image/png-encode.js';
import { readResolution, withResolution } from '../../src/image/png-resolution.js';
import { readPngText } from '../../src/image/png-text.js';

const SPEC: GridSpec = {
  width: 2161,
  rows: 2,
  columns: 3,
  margin: 12,
  gap: 12,
  fontPx: 33.33,
  columnHeadings: true,
  rowHeadings: true,
  titles: false,
  aspect: 1,
  legendLines: 1,
};

test('lengths in mm, cm, inches and pixels at a resolution; type sizes in points', () => {
  assert.equal(Math.round(lengthInPixels('183mm', 300)!), 2161);
  assert.equal(Math.round(lengthInPixels('89mm', 600)!), 2102);
  assert.equal(lengthInPixels('3.5in', 300), 1050);
  assert.equal(Math.round(lengthInPixels('2.54cm', 300)!), 300);
  assert.equal(lengthInPixels('1200px', 300), 1200);
  assert.equal(lengthInPixels('12 mm', 300), undefined);
  assert.equal(lengthInPixels('12pt', 300), undefined);
  assert.equal(pointsInPixels(72, 300), 300);
});

test('a grid: the figure as wide as asked, panels on whole pixels, gaps between them, legend below', () => {
  const g = gridGeometry(SPEC);
  assert.ok(!isGeometryProblem(g));
  assert.equal(g.width, 2161);
  assert.equal(g.cells.length, 6);
  for (const c of g.cells) {
    assert.ok(Number.isInteger(c.x) && Number.isInteger(c.y));
    assert.equal(c.width, g.panelWidth);
    assert.equal(c.height, g.panelHeight);
    assert.ok(c.x + c.width <= g.width - SPEC.margin, 'inside the right margin');
  }
  assert.equal(g.panelWidth, g.panelHeight, 'square panels by default');
  assert.equal(g.cells[1]!.x - (g.cells[0]!.x + g.panelWidth), SPEC.gap);
  assert.equal(g.cells[3]!.y - (g.cells[0]!.y + g.panelHeight), SPEC.gap);
  assert.ok(g.rowHeadings[0]!.x + g.rowHeadings[0]!.width <= g.cells[0]!.x, 'row headings left of the panels');
  assert.ok(g.legend.y >= g.cells[5]!.y + g.panelHeight + SPEC.gap, 'legend below the grid');
  assert.equal(g.height, g.legend.y + g.legend.height + SPEC.margin);
});

test('a fixed height shares what is left among the rows; too little room is a problem, not a figure', () => {
  const fixed = gridGeometry({ ...SPEC, height: 1200 });
  assert.ok(!isGeometryProblem(fixed));
  assert.equal(fixed.height, 1200);
  assert.ok(fixed.legend.y + fixed.legend.height <= 1200 - SPEC.margin);
  const small = gridGeometry({ ...SPEC, width: 150 });
  assert.ok(isGeometryProblem(small));
  assert.match(small.problem, new RegExp(`at least ${MIN_PANEL}×${MIN_PANEL}`));
  assert.ok(isGeometryProblem(gridGeometry({ ...SPEC, height: 200 })));
});

test('the pHYs chunk carries the dpi and reads back as it; the pixels are untouched', async () => {
  const image = { width: 3, height: 2, data: new Uint8Array(24).fill(200) };
  const png = encodeRenderPng(image, false);
  for (const dpi of [300, 600, 72]) {
    const stamped = withResolution(png, dpi);
    const back = readResolution(stamped)!;
    assert.ok(Math.abs(back.x - dpi) < 0.01 && Math.abs(back.y - dpi) < 0.01, `${dpi} dpi read back as ${back.x}`);
    assert.deepEqual((await decodePng(stamped)).data, (await decodePng(png)).data);
    assert.equal(readResolution(withResolution(stamped, 150))!.x.toFixed(1), '150.0', 'restamping replaces the chunk');
  }
  assert.equal(readResolution(png), undefined);
});

test('a segmentation legend: visible labels in order, colours as fractions or as bytes', () => {
  const groups = JSON.stringify([
    {
      labels: [
        { value: 1, name: 'tumour', color: [1.0, 0.25, 0.0] },
        { value: 2, name: 'hidden', color: [0.0, 1.0, 0.0], visible: false },
      ],
    },
    { name: 'g2', labels: [{ value: 3, name: 'oedème', color: [0, 128, 255] }] },
  ]).replace('[1,0.25,0]', '[1.0,0.25,0.0]');
  const header = `NRRD0004\ntype: unsigned short\nencoding: gzip\norg.mitk.multilabel.segmentation.labelgroups:=${groups}\n\n`;
  const nrrd = Buffer.concat([Buffer.from(header, 'utf8'), deflateSync(Buffer.alloc(16))]);
  assert.deepEqual(segmentationLabels(nrrd), [
    { name: 'tumour', color: [1, 0.25, 0] },
    { name: 'oedème', color: [0, 128 / 255, 1] },
  ]);
  assert.deepEqual(segmentationLabels(Buffer.from('NRRD0004\ntype: float\n\n')), []);
});

test('legend entries are measured and wrapped: none overlaps the next, every line inside the grid', () => {
  const entries = Array.from({ length: 14 }, (_, i) => ({
    name: `structure number ${i + 1}`,
    color: [i / 14, 0.5, 0.2] as [number, number, number],
  }));
  const { legendLines: _, ...spec } = SPEC;
  const layout = layoutFigure(spec, entries);
  assert.ok(!('problem' in layout));
  const lines = new Set(layout.legend.map((e) => e.y));
  assert.ok(lines.size > 1, 'fourteen long names take more than one line');
  assert.equal(layout.geometry.legend.height, lines.size * layout.geometry.lineHeight);
  for (const y of lines) {
    const row = layout.legend.filter((e) => e.y === y);
    for (let i = 1; i < row.length; i++) assert.ok(row[i]!.x > row[i - 1]!.x + 100, 'entries keep apart');
    assert.ok(row[0]!.x >= layout.geometry.legend.x);
  }
});

test('the SVG escapes every text and the PNG is its rasterisation, with provenance and dpi', async () => {
  const { legendLines: _, ...spec } = { ...SPEC, width: 600, rows: 1, columns: 2, fontPx: 16, rowHeadings: false };
  const layout = layoutFigure(spec, [{ name: 'a <b> & "c"', color: [1, 0, 0] }]);
  assert.ok(!('problem' in layout));
  const cell = layout.geometry.cells[0]!;
  const panel = encodeRenderPng(
    { width: cell.width, height: cell.height, data: new Uint8Array(cell.width * cell.height * 4).fill(90) },
    false,
  );
  const drawing = {
    geometry: layout.geometry,
    fontPx: 16,
    background: [1, 1, 1] as [number, number, number],
    textColor: [0, 0, 0] as [number, number, number],
    letterColor: [1, 1, 1] as [number, number, number],
    panels: [{ cell: 0, bytes: panel, mime: 'image/png' as const, letter: '<A>' }],
    columnHeadings: ['</text><script>x</script>', 'plain'],
    rowHeadings: [],
    legend: layout.legend,
  };
  const files = await drawFigure(drawing, 300, { 'wbplay:playbook': 'f.yaml' });
  assert.ok(files.svg !== undefined && files.png !== undefined);
  assert.ok(!files.svg.includes('<script>'));
  assert.match(files.svg, /&lt;\/text&gt;&lt;script&gt;/);
  assert.match(files.svg, /a &lt;b&gt; &amp; &quot;c&quot;/);
  assert.match(files.svg, /@font-face\{font-family:'DejaVu Sans'/, 'the typeface travels in the SVG');
  assert.ok(!figureSvg(drawing, { embedFonts: false }).includes('@font-face'));
  assert.equal(readPngText(files.png)['wbplay:playbook'], 'f.yaml');
  assert.equal(Math.round(readResolution(files.png)!.x), 300);
  const image = await decodePng(files.png);
  assert.equal(image.width, 600);
  // The panel is drawn pixel for pixel: its middle is the grey it was captured with.
  const mid = ((cell.y + (cell.height >> 1)) * image.width + cell.x + (cell.width >> 1)) * 4;
  assert.deepEqual([...image.data.subarray(mid, mid + 3)], [90, 90, 90]);
  // Drawn twice, the same bytes.
  assert.deepEqual((await drawFigure(drawing, 300, { 'wbplay:playbook': 'f.yaml' })).png, files.png);
});

test('a colour bar takes a legend line after the entries: its label, low value, gradient through the table, high value', async () => {
  const { legendLines: _, ...spec } = { ...SPEC, width: 800, rows: 1, columns: 2, fontPx: 16, rowHeadings: false };
  // A four-entry table from black to white, the second entry transparent.
  const colours = [
    [0, 0, 0, 1],
    [1 / 3, 1 / 3, 1 / 3, 0],
    [2 / 3, 2 / 3, 2 / 3, 1],
    [1, 1, 1, 1],
  ] as const;
  const layout = layoutFigure(
    spec,
    [{ name: 'tumour', color: [1, 0, 0] }],
    [{ label: 'CT (HU)', colours, low: -160, high: 240 }],
  );
  assert.ok(!('problem' in layout));
  const { geometry: g, colourBars } = layout;
  assert.equal(g.legend.height, 2 * g.lineHeight, 'one line of entries, one for the bar');
  const bar = colourBars[0]!;
  assert.equal(bar.y, layout.legend[0]!.y + g.lineHeight);
  assert.ok(bar.labelX < bar.lowX && bar.lowX < bar.bar.x && bar.bar.x + bar.bar.width < bar.highX);
  assert.ok(bar.labelX >= g.legend.x && bar.highX < g.legend.x + g.legend.width, 'inside the legend');
  assert.equal(bar.bar.width, 16 * 20, 'half the line, at most twenty type sizes');
  const svg = figureSvg(
    {
      geometry: g,
      fontPx: 16,
      background: [1, 1, 1],
      textColor: [0, 0, 0],
      letterColor: [1, 1, 1],
      panels: [],
      columnHeadings: [],
      rowHeadings: [],
      legend: layout.legend,
      colourBars,
    },
    { embedFonts: false },
  );
  assert.match(
    svg,
    /<linearGradient id="wbplay-colour-bar-0"[^>]*><stop offset="0" stop-color="#000000"\/><stop offset="0\.33333" stop-color="#555555" stop-opacity="0"\/><stop offset="0\.66667" stop-color="#aaaaaa"\/><stop offset="1" stop-color="#ffffff"\/><\/linearGradient>/,
  );
  assert.match(svg, />CT \(HU\)</);
  assert.match(svg, />\u2212160</, 'a negative end value with a true minus sign');
  assert.match(svg, />240</);
  assert.match(svg, /fill="url\(#wbplay-colour-bar-0\)"/);
});
