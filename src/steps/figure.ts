import { gridGeometry, isGeometryProblem, type GridSpec } from '../figure/geometry.js';
import { lengthInPixels, LENGTH_PATTERN, pointsInPixels } from '../figure/length.js';
import { CORNERS, type Annotation, type Corner } from '../figure/annotation-kinds.js';
import type { Occupied } from '../figure/placement.js';
import type { FigureFormat } from '../figure/compose.js';
import type { FigurePanel } from '../figure/svg.js';
import type { Rect, Rgb } from '../image/rgba.js';
import type { Artefact } from '../result/result.js';
import { showFile } from './describe.js';
import { ANNOTATION_SCHEMA, compileAnnotations, type RawAnnotation } from './figure-annotations.js';
import { compileLegend, LEGEND_SCHEMA, legendOf, type LegendArgs, type RawLegend } from './figure-legend.js';
import { object, ref } from './schema-defs.js';
import type { JsonSchema, StepCompileContext, StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';

type Window = Extract<WindowAddress, { target: 'window' }>;

export interface FigurePanelArgs {
  window?: Window;
  /** An image file shown instead of a capture (PNG or JPEG). */
  image?: string;
  title?: string;
  /** Millimetres; 2D windows only. */
  scaleBar?: { mm: number; color: Rgb; corner?: Corner };
  /** Anchored in the patient; lengths on paper already in pixels. */
  annotations?: Annotation[];
}

/** What `formats` may list, in the order files are written. */
const FORMATS: readonly FigureFormat[] = ['png', 'svg', 'pdf', 'tiff'];

export interface FigureArgs {
  save: string;
  /** The files written, each beside `save` with its extension; `png` is `save` itself. */
  files: Partial<Record<FigureFormat, string>>;
  dpi: number;
  /** Every length in pixels at `dpi`. */
  grid: Omit<GridSpec, 'legendLines'>;
  panels: FigurePanelArgs[];
  letters: string[];
  columnHeadings: string[];
  rowHeadings: string[];
  background: Rgb;
  textColor: Rgb;
  letterColor: Rgb;
  legend: LegendArgs;
}

const DEFAULT_DPI = 300;
const DEFAULT_POINTS = 8;
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const length = (description: string): JsonSchema => ({ description, type: 'string', pattern: LENGTH_PATTERN });
const texts = (description: string): JsonSchema => ({
  description,
  type: 'array',
  items: { description: 'One line of text; empty for none.', type: 'string' },
});

const PANEL = object(
  {
    window: { ...ref('window'), description: 'The render window captured for this panel, at the panel size.' },
    image: { ...ref('file'), description: 'An image file (PNG or JPEG) shown in this panel instead of a capture.' },
    title: { description: 'A line above the panel.', type: 'string' },
    scale_bar: {
      description: 'A scale bar of this many millimetres, from the window camera; 2D windows only.',
      anyOf: [
        { description: 'Length in millimetres.', type: 'number', exclusiveMinimum: 0, examples: [20] },
        object(
          {
            length: { description: 'Length in millimetres.', type: 'number', exclusiveMinimum: 0, examples: [20] },
            color: { ...ref('color'), description: 'Colour of the bar and its label; default white.' },
            corner: {
              description:
                'The corner it is drawn in (default bottom-right); moved to a free corner when an inset, an annotation or the panel letter is there.',
              enum: [...CORNERS],
            },
          },
          ['length'],
          { description: 'A scale bar with its colour.' },
        ),
      ],
    },
    annotations: {
      description:
        "Arrows, circles, text, rulers and insets placed by world millimetres through the window's camera at its capture.",
      type: 'array',
      items: ANNOTATION_SCHEMA,
    },
  },
  [],
  { description: 'One panel: a window capture or an image file.', minProperties: 1 },
);

export const figure: StepDefinition<'figure', FigureArgs> = {
  kind: 'figure',
  summary:
    'Compose window captures into one publication figure (PNG with its dpi, SVG, PDF, TIFF): panel letters, headings, scale bars, annotations anchored in the patient, insets, a legend, sized in mm or inches.',
  schema: object(
    {
      save: {
        description: 'The PNG to write, e.g. ${out}/figure-1.png; the other `formats` go beside it.',
        type: 'string',
        pattern: '\\.png$',
      },
      svg: { description: 'Write the SVG beside the PNG (default true); `formats` says more.', type: 'boolean' },
      formats: {
        description:
          "The files written beside `save`, by extension (default [png, svg]): pdf has the text as text in an embedded subset of the typeface, tiff the PNG's pixels and dpi.",
        type: 'array',
        minItems: 1,
        items: { description: 'A file format.', enum: [...FORMATS] },
      },
      width: length('Width of the whole figure: 89mm, 183mm, 7in, 2000px.'),
      height: length('Height of the whole figure; default: from the panels, square unless `aspect` says otherwise.'),
      dpi: { description: 'Dots per inch (default 300).', type: 'integer', minimum: 50, maximum: 2400 },
      columns: {
        description: 'Panels per row; default: one per column heading, else all panels in one row.',
        type: 'integer',
        minimum: 1,
      },
      aspect: {
        description: 'Panel height over panel width when `height` is not given (default 1).',
        type: 'number',
        exclusiveMinimum: 0,
        maximum: 10,
      },
      panels: {
        description: 'The panels, row by row.',
        type: 'array',
        minItems: 1,
        items: PANEL,
      },
      letters: {
        description: 'Panel letters: `upper` (A, B, …, the default), `lower` (a, b, …), `none`, or your own list.',
        anyOf: [
          { description: 'A lettering style.', enum: ['upper', 'lower', 'none'] },
          texts('One letter (or label) per panel, in order.'),
        ],
      },
      column_headings: texts('Headings above the columns.'),
      row_headings: texts('Headings left of the rows, turned upright.'),
      font_size: {
        description: 'Type size in points (default 8).',
        type: 'number',
        minimum: 4,
        maximum: 72,
      },
      margin: length('Space around the figure (default 1mm).'),
      gap: length('Space between panels (default 1mm).'),
      background: { ...ref('color'), description: 'Background colour (default white).' },
      text_color: { ...ref('color'), description: 'Colour of headings, titles and the legend (default black).' },
      letter_color: { ...ref('color'), description: 'Colour of the panel letters (default white).' },
      legend: LEGEND_SCHEMA,
    },
    ['save', 'width', 'panels'],
  ),
  compile(raw, ctx) {
    const r = raw as RawFigure;
    const dpi = r.dpi ?? DEFAULT_DPI;
    const px = (key: string, text: string): number => Math.round(lengthInPixels(text, dpi) ?? badLength(ctx, key));
    const panels = r.panels.map((p, i) => compilePanel(p, i, dpi, ctx));
    const columns = r.columns ?? (r.column_headings?.length || r.panels.length);
    const rows = Math.ceil(r.panels.length / columns);
    const letters = lettersOf(r.letters, r.panels.length, ctx);
    checkCount(ctx, 'column_headings', r.column_headings, columns, 'columns');
    checkCount(ctx, 'row_headings', r.row_headings, rows, 'rows');
    const grid: Omit<GridSpec, 'legendLines'> = {
      width: px('width', r.width),
      ...(r.height !== undefined ? { height: px('height', r.height) } : {}),
      rows,
      columns,
      margin: px('margin', r.margin ?? '1mm'),
      gap: px('gap', r.gap ?? '1mm'),
      fontPx: pointsInPixels(r.font_size ?? DEFAULT_POINTS, dpi),
      columnHeadings: (r.column_headings ?? []).length > 0,
      rowHeadings: (r.row_headings ?? []).length > 0,
      titles: r.panels.some((p) => p.title !== undefined),
      aspect: r.aspect ?? 1,
    };
    const legend = compileLegend(r.legend, ctx);
    const hasLegend = legend.nodes.length + legend.entries.length + legend.colourBars.length > 0;
    const fits = gridGeometry({ ...grid, legendLines: hasLegend ? 1 : 0 });
    if (isGeometryProblem(fits))
      ctx.error('FIGURE_TOO_SMALL', [r.height !== undefined ? 'height' : 'width'], fits.problem, fits.hint);
    if (r.formats !== undefined && r.svg !== undefined)
      ctx.keyError(
        'EXCLUSIVE_FIELDS',
        ['svg'],
        '`svg` and `formats` both say which files to write',
        'list the files in `formats` (e.g. [png, pdf]) and leave `svg` out',
      );
    const formats = r.formats ?? (r.svg === false ? ['png'] : ['png', 'svg']);
    const files: FigureArgs['files'] = {};
    for (const f of FORMATS.filter((f) => formats.includes(f)))
      files[f] = ctx.outputFile(f === 'png' ? r.save : r.save.replace(/\.png$/, `.${f}`), ['save']);
    const save = files.png ?? ctx.resolvePath(r.save);
    return {
      save,
      files,
      dpi,
      grid,
      panels,
      letters,
      columnHeadings: r.column_headings ?? [],
      rowHeadings: r.row_headings ?? [],
      background: r.background ?? [1, 1, 1],
      textColor: r.text_color ?? [0, 0, 0],
      letterColor: r.letter_color ?? [1, 1, 1],
      legend,
    };
  },
  async run(a, ctx) {
    // Composition, fonts and PNG encoding are loaded by the run that draws a figure, not by every
    // command that reads a playbook (`wbplay validate` checks figures without them).
    const [
      { layoutFigure, drawFigure },
      { portableProvenance, provenanceEntries },
      { panelImage, scaleBar },
      { annotationMarks, panelView },
      { chooseCorner, overlaps, placementNotice, within },
      { letterBox, scaleBarBox },
    ] = await Promise.all([
      import('../figure/compose.js'),
      import('../files/provenance.js'),
      import('./figure-content.js'),
      import('./figure-views.js'),
      import('../figure/placement.js'),
      import('../figure/svg.js'),
    ]);
    const { entries: legend, bars, resolved: resolvedLegend } = await legendOf(a.legend, ctx);
    const layout = layoutFigure(a.grid, legend, bars);
    if ('problem' in layout) return failed('FIGURE_TOO_SMALL', `${layout.problem}`, layout.hint);
    const { geometry } = layout;
    const panels: FigurePanel[] = [];
    for (const [i, p] of a.panels.entries()) {
      // The camera and the window's shape as they are at the capture: annotations are placed,
      // and scale bars measured, by them.
      const annotated = p.window && p.annotations && p.annotations.length > 0 ? p.window : undefined;
      const measured = annotated ?? (p.scaleBar ? p.window : undefined);
      const view = measured ? await panelView(measured, ctx) : undefined;
      const panel: FigurePanel = {
        cell: i,
        ...(await panelImage(p, geometry.panelWidth, geometry.panelHeight, ctx)),
        ...(a.letters[i] !== undefined ? { letter: a.letters[i] } : {}),
        ...(p.title !== undefined ? { title: p.title } : {}),
      };
      const cell = geometry.cells[i]!;
      // The letter is drawn top-left whatever else the panel has: nothing is placed over it.
      const taken: Occupied[] =
        a.letters[i] !== undefined && a.letters[i] !== ''
          ? [{ name: 'the panel letter', rect: within(letterBox(cell, a.letters[i], a.grid.fontPx), cell) }]
          : [];
      if (annotated && view) {
        const overlay = await annotationMarks(i, p.annotations ?? [], annotated, view, cell, a.grid.fontPx, ctx, taken);
        panel.overlay = overlay.marks;
        taken.push(...overlay.occupied);
      }
      if (p.scaleBar && p.window) {
        const shape = { width: geometry.panelWidth, height: geometry.panelHeight, aspect: view?.aspect ?? 1 };
        const bar = await scaleBar(p.window, p.scaleBar, shape, ctx);
        if (!bar)
          return failed(
            'NO_SCALE',
            `the camera of ${p.window.address} has no parallel_scale to measure the scale bar of panel ${i + 1} with`,
            'put scale bars on 2D windows only',
          );
        if (bar.length > geometry.panelWidth - Math.round(a.grid.fontPx * 1.2)) {
          return failed(
            'SCALE_BAR_TOO_LONG',
            `the ${p.scaleBar.mm} mm scale bar of panel ${i + 1} (${p.window.address}) would be ${bar.length} pixels long, but the panel is ${geometry.panelWidth} pixels wide`,
            'choose a shorter scale bar, or zoom the window out (camera parallel_scale)',
          );
        }
        // The scale bar goes where it covers nothing: inside an inset it would read at the inset's scale.
        const wanted = p.scaleBar.corner ?? 'bottom-right';
        const boxAt = (corner: Corner): Rect => within(scaleBarBox(cell, bar, a.grid.fontPx, corner), cell);
        const choice = chooseCorner(wanted, boxAt, taken);
        const covered = taken.filter((t) => overlaps(boxAt(wanted), t.rect)).map((t) => t.name);
        const notice = placementNotice(`the scale bar of panel ${i + 1}`, wanted, choice, covered);
        if (notice) ctx.notice(notice);
        panel.scaleBar = { ...bar, corner: choice.corner };
      }
      panels.push(panel);
    }
    const provenance = portableProvenance(await ctx.provenance());
    const files = await drawFigure(
      {
        geometry,
        fontPx: a.grid.fontPx,
        background: a.background,
        textColor: a.textColor,
        letterColor: a.letterColor,
        panels,
        columnHeadings: a.columnHeadings,
        rowHeadings: a.rowHeadings,
        legend: layout.legend,
        colourBars: layout.colourBars,
      },
      a.dpi,
      { ...provenanceEntries(provenance), 'wbplay:dpi': String(a.dpi) },
      Object.keys(a.files) as FigureFormat[],
    );
    const artefacts: Artefact[] = [];
    for (const [format, path] of Object.entries(a.files) as Array<[FigureFormat, string]>) {
      const content = files[format];
      if (content === undefined) continue;
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      const written = await ctx.writeOutput(path, bytes, 'figure');
      artefacts.push(format === 'png' ? { ...written, provenance } : written);
    }
    return {
      status: 'passed',
      artefacts,
      resolvedArgs: { ...a, legend: resolvedLegend },
    };
  },
  describe(a) {
    return `compose ${a.panels.length} panel${a.panels.length === 1 ? '' : 's'} (${a.grid.rows}×${a.grid.columns}) into ${showFile(a.save)}${extras(a)} at ${a.grid.width} px, ${a.dpi} dpi`;
  },
};

/** ` and .svg, .pdf`: the files beside the PNG, for the plan's one line. */
function extras(a: FigureArgs): string {
  const others = Object.keys(a.files).filter((f) => f !== 'png');
  return others.length > 0 ? ` and ${others.map((f) => `.${f}`).join(', ')}` : '';
}

interface RawFigure {
  save: string;
  svg?: boolean;
  formats?: FigureFormat[];
  width: string;
  height?: string;
  dpi?: number;
  columns?: number;
  aspect?: number;
  panels: Array<{
    window?: string;
    image?: string;
    title?: string;
    scale_bar?: number | { length: number; color?: Rgb; corner?: Corner };
    annotations?: RawAnnotation[];
  }>;
  letters?: 'upper' | 'lower' | 'none' | string[];
  column_headings?: string[];
  row_headings?: string[];
  font_size?: number;
  margin?: string;
  gap?: string;
  background?: Rgb;
  text_color?: Rgb;
  letter_color?: Rgb;
  legend?: RawLegend;
}

function compilePanel(
  p: RawFigure['panels'][number],
  i: number,
  dpi: number,
  ctx: StepCompileContext,
): FigurePanelArgs {
  const at = ['panels', i];
  if ((p.window === undefined) === (p.image === undefined)) {
    ctx.error(
      'EXCLUSIVE_FIELDS',
      at,
      `panel ${i + 1} needs exactly one of \`window\` and \`image\``,
      'capture a window (`window: mxn/mxn__ct_axial`) or show a file (`image: diagram.png`)',
    );
    return {};
  }
  const window = p.window !== undefined ? ctx.window(p.window, [...at, 'window'], ['window']) : undefined;
  const out: FigurePanelArgs = {
    ...(window?.target === 'window' ? { window } : {}),
    ...(p.image !== undefined ? { image: ctx.inputFile(p.image, [...at, 'image']) } : {}),
    ...(p.title !== undefined ? { title: p.title } : {}),
  };
  if (p.annotations !== undefined && p.annotations.length > 0) {
    if (p.image !== undefined)
      ctx.keyError(
        'ANNOTATION_WITHOUT_CAMERA',
        [...at, 'annotations'],
        `panel ${i + 1} shows an image file, which has no camera to place points of the patient with`,
        'annotate panels that capture a window',
      );
    else out.annotations = compileAnnotations(p.annotations, [...at, 'annotations'], dpi, ctx);
  }
  if (p.scale_bar === undefined) return out;
  const bar = typeof p.scale_bar === 'number' ? { length: p.scale_bar } : p.scale_bar;
  if (p.image !== undefined) {
    ctx.keyError(
      'SCALE_BAR_3D',
      [...at, 'scale_bar'],
      `panel ${i + 1} shows an image file, which has no camera to measure a scale bar with`,
      'put scale bars on panels that capture a 2D window',
    );
  } else if (window?.target === 'window' && window.kind === '3d') {
    ctx.keyError(
      'SCALE_BAR_3D',
      [...at, 'scale_bar'],
      `panel ${i + 1} captures the 3D window \`${window.address}\`: a perspective view has no single scale`,
      'put scale bars on 2D windows (axial, sagittal, coronal, MxN cells) only',
    );
  } else
    out.scaleBar = {
      mm: bar.length,
      color: bar.color ?? [1, 1, 1],
      ...('corner' in bar && bar.corner !== undefined ? { corner: bar.corner } : {}),
    };
  return out;
}

function lettersOf(value: RawFigure['letters'], count: number, ctx: StepCompileContext): string[] {
  if (Array.isArray(value)) {
    if (value.length < count)
      ctx.error(
        'FIGURE_SHAPE',
        ['letters'],
        `${value.length} letters for ${count} panels`,
        `give one letter per panel, or write \`letters: upper\``,
      );
    return value;
  }
  if (value === 'none') return [];
  const letters = Array.from({ length: count }, (_, i) => letterOf(i));
  return value === 'lower' ? letters.map((l) => l.toLowerCase()) : letters;
}

/** A, B, …, Z, AA, AB, … */
function letterOf(i: number): string {
  return i < UPPER.length ? UPPER[i]! : letterOf(Math.floor(i / UPPER.length) - 1) + UPPER[i % UPPER.length]!;
}

function checkCount(
  ctx: StepCompileContext,
  key: string,
  list: readonly string[] | undefined,
  want: number,
  what: string,
): void {
  if (list !== undefined && list.length > 0 && list.length !== want)
    ctx.error(
      'FIGURE_SHAPE',
      [key],
      `${list.length} ${key.replace('_', ' ')} for ${want} ${what}`,
      `give one per ${what.slice(0, -1)} (an empty string leaves one out), or change \`columns\``,
    );
}

function badLength(ctx: StepCompileContext, key: string): number {
  ctx.error('BAD_LENGTH', [key], `\`${key}\` is not a length`, 'write a number and a unit: 89mm, 3.5in, 1.2cm, 2000px');
  return 0;
}

function failed(
  code: string,
  message: string,
  hint: string,
): { status: 'failed'; failure: { code: string; message: string; hint: string } } {
  return { status: 'failed', failure: { code, message, hint } };
}
