import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { placeAnnotation } from '../../figure/annotations.js';
import { readCaptureView, type CaptureView } from '../../figure/capture-view.js';
import { drawFigure, layoutFigure, type FigureFormat } from '../../figure/compose.js';
import { boundsOf, chooseCorner, overlaps, placementNotice, within, type Occupied } from '../../figure/placement.js';
import type { Corner } from '../../figure/annotation-kinds.js';
import { letterBox, scaleBarBox, type FigurePanel } from '../../figure/svg.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { provenanceEntries, type FigureProvenance } from '../../files/provenance.js';
import { decodePng } from '../../image/png-decode.js';
import { encodeRenderPng } from '../../image/png-encode.js';
import type { Rect } from '../../image/rgba.js';
import { artefactAt, type Artefact } from '../../result/result.js';
import { ReviewError } from '../../result/review-error.js';
import { readReview, REVIEW_FILE, type ReviewFile } from '../../result/review-file.js';
import { VERSION } from '../../version.js';
import { annotationName } from '../figure-annotations.js';
import { COHORT_FIGURE_STEP, type CohortFigurePlan, type CohortRow } from './cohort-figure-plan.js';
import { shardCaptures } from './shard-captures.js';

/** A figure that cannot be made as asked, with what to do about it. */
export class CohortFigureError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'CohortFigureError';
  }
}

export interface CohortFigureContext {
  playbook: { path: string; sha256: string };
  outputDir: string;
  /** The cases that passed in this run; undefined after the run, when the captures on disk are what there is. */
  passed?: ReadonlySet<string>;
  notice(message: string): void;
}

/** A capture as the figure shows it: its pixels only (no text chunks), its size, and the view it recorded. */
interface Tile {
  file: string;
  /** Found in a shard's folder through a merged folder's report, which names it so. */
  inShard: boolean;
  png: Uint8Array;
  width: number;
  height: number;
  sha256: string;
  view: CaptureView | undefined;
}

/** Makes the figure's files from the chosen cases' captures and says where they are. */
export async function makeCohortFigure(plan: CohortFigurePlan, ctx: CohortFigureContext): Promise<Artefact[]> {
  const rows = await chosenRows(plan, ctx.outputDir);
  if (ctx.passed) {
    const missing = rows.filter((r) => !ctx.passed!.has(r.case));
    if (missing.length > 0)
      throw new CohortFigureError(
        `${names(missing.map((r) => r.name))} of its rows did not pass in this run`,
        'run those cases, then make the figure with `wbplay cohort-figure PLAYBOOK OUT`',
      );
  }
  const elsewhere = shardCaptures(ctx.outputDir);
  const tiles = await Promise.all(rows.map((r) => Promise.all(r.tiles.map((file) => readTile(file, elsewhere)))));
  const first = tiles[0]![0]!;
  const columns = plan.columns.length;
  const layout = layoutFigure(
    {
      width: plan.width,
      ...(plan.height !== undefined ? { height: plan.height } : {}),
      rows: rows.length,
      columns,
      margin: plan.margin,
      gap: plan.gap,
      fontPx: plan.fontPx,
      columnHeadings: plan.columns.some((c) => c.heading !== undefined),
      rowHeadings: true,
      titles: false,
      // Cells take the first capture's shape, so captures of one size fill them to the edge.
      aspect: first.height / first.width,
    },
    plan.legend,
  );
  if ('problem' in layout) throw new CohortFigureError(layout.problem, layout.hint);
  const { geometry } = layout;
  const letters = lettersOf(plan.letters, rows.length * columns);
  const panels: FigurePanel[] = [];
  for (const [r, row] of rows.entries()) {
    for (let c = 0; c < columns; c++) {
      const i = r * columns + c;
      const tile = tiles[r]![c]!;
      const cell = geometry.cells[i]!;
      const letter = letters[i];
      const panel: FigurePanel = { cell: i, bytes: tile.png, mime: 'image/png', ...(letter ? { letter } : {}) };
      const taken: Occupied[] = letter
        ? [{ name: 'the panel letter', rect: within(letterBox(cell, letter, plan.fontPx), cell) }]
        : [];
      const shown = fitted(cell, tile);
      const annotations = row.annotations[c] ?? [];
      const column = plan.columns[c]!;
      if (annotations.length > 0) {
        const view = viewOf(tile, 'its annotations');
        panel.overlay = annotations.flatMap((a, k) => {
          const placed = placeAnnotation(a, {
            view,
            cell: shown,
            fontPx: plan.fontPx,
            name: `${row.name}, ${annotationName(c, annotations, k).replace(/^panel/, 'column')}`,
          });
          placed.notices.forEach((n) => ctx.notice(n));
          return placed.marks;
        });
        // The scale bar goes to a corner where it covers none of the marks of the patient.
        const bounds = boundsOf(panel.overlay, plan.fontPx);
        if (bounds) taken.push({ name: 'the annotations', rect: within(bounds, cell) });
      }
      if (column.scaleBar) {
        const view = viewOf(tile, 'a scale bar');
        const scale = view.camera.parallel_scale;
        if (scale === null || !(scale > 0))
          throw new CohortFigureError(
            `${shownPath(tile, ctx.outputDir)} is a capture of a 3D window: a perspective view has no single scale for the scale bar of column ${c + 1}`,
            'put scale bars on columns of 2D windows only',
          );
        // Across, the capture shows 2·parallel_scale·aspect millimetres, drawn `shown.width` pixels wide.
        const length = Math.round((column.scaleBar.mm * shown.width) / (2 * scale * view.aspect));
        if (length > geometry.panelWidth - Math.round(plan.fontPx * 1.2))
          throw new CohortFigureError(
            `the ${column.scaleBar.mm} mm scale bar of column ${c + 1} would be ${length} pixels long in ${row.name}'s panel, which is ${geometry.panelWidth} pixels wide`,
            'choose a shorter scale bar',
          );
        const bar = { length, label: `${column.scaleBar.mm} mm`, color: column.scaleBar.color };
        const wanted = column.scaleBar.corner ?? 'bottom-right';
        const boxAt = (corner: Corner): Rect => within(scaleBarBox(cell, bar, plan.fontPx, corner), cell);
        const choice = chooseCorner(wanted, boxAt, taken);
        const covered = taken.filter((t) => overlaps(boxAt(wanted), t.rect)).map((t) => t.name);
        const notice = placementNotice(`the scale bar of ${row.name}, column ${c + 1}`, wanted, choice, covered);
        if (notice) ctx.notice(notice);
        panel.scaleBar = { ...bar, corner: choice.corner };
      }
      panels.push(panel);
    }
  }

  const captures: Record<string, string> = {};
  for (const row of tiles) for (const t of row) captures[shownPath(t, ctx.outputDir)] = t.sha256;
  const provenance: FigureProvenance = {
    playbook: basename(ctx.playbook.path),
    playbookSha256: ctx.playbook.sha256,
    step: COHORT_FIGURE_STEP,
    inputs: captures,
    version: VERSION,
  };
  const cases = rows.map((r, i) => ({
    case: r.name,
    captures: tiles[i]!.map((t) => shownPath(t, ctx.outputDir)),
  }));
  const formats = Object.keys(plan.files) as FigureFormat[];
  const files = await drawFigure(
    {
      geometry,
      fontPx: plan.fontPx,
      background: plan.background,
      textColor: plan.textColor,
      letterColor: plan.letterColor,
      panels,
      columnHeadings: plan.columns.map((c) => c.heading ?? ''),
      rowHeadings: rows.map((r) => r.label),
      legend: layout.legend,
      colourBars: layout.colourBars,
    },
    plan.dpi,
    { ...provenanceEntries(provenance), 'wbplay:cases': JSON.stringify(cases), 'wbplay:dpi': String(plan.dpi) },
    formats,
  );
  const artefacts: Artefact[] = [];
  for (const [format, path] of Object.entries(plan.files) as Array<[FigureFormat, string]>) {
    const content = files[format];
    if (content === undefined) continue;
    await writeFileAtomic(path, content);
    artefacts.push({ ...artefactAt(ctx.outputDir, path, 'figure'), provenance });
  }
  return artefacts;
}

/** The rows the figure shows: the chosen cases, or those the review marks representative. */
async function chosenRows(plan: CohortFigurePlan, outputDir: string): Promise<CohortRow[]> {
  if (plan.choice.by !== 'representative') {
    if (plan.rows.length === 0)
      throw new CohortFigureError('no case is chosen', 'list the cases by name, or choose them with `where`');
    return plan.rows;
  }
  let review: ReviewFile;
  try {
    review = await readReview(outputDir, { mustExist: true });
  } catch (err) {
    if (!(err instanceof ReviewError)) throw err;
    if (!existsSync(join(outputDir, REVIEW_FILE)))
      throw new CohortFigureError(
        `\`cases: representative\` reads the review of ${outputDir}, and it has no ${REVIEW_FILE}`,
        `run \`wbplay review ${outputDir}\` first and mark the cases with Representative, or list the cases by name`,
      );
    throw new CohortFigureError(err.message, err.hint ?? 'review the output folder again with `wbplay review`');
  }
  const marked = new Set(
    Object.entries(review.cases)
      .filter(([, c]) => c.representative)
      .map(([name]) => name),
  );
  const rows = plan.rows.filter((r) => marked.has(r.name) || marked.has(r.case));
  if (rows.length === 0)
    throw new CohortFigureError(
      `the review of ${outputDir} marks no case of this playbook representative`,
      `mark cases with Representative in \`wbplay review ${outputDir}\`, or list the cases by name`,
    );
  return rows;
}

async function readTile(named: string, elsewhere: (file: string) => Promise<string | undefined>): Promise<Tile> {
  let bytes: Uint8Array;
  let file = named;
  try {
    bytes = await readFile(file).catch(async (err: NodeJS.ErrnoException) => {
      // A folder merged from shards names its captures in the shards' folders.
      const found = err.code === 'ENOENT' ? await elsewhere(file) : undefined;
      if (found === undefined) throw err;
      file = found;
      return readFile(file);
    });
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CohortFigureError(
      missing ? `the capture ${file} does not exist` : `the capture ${file} cannot be read: ${(err as Error).message}`,
      missing ? 'run the playbook first, so its screenshots are there' : 'check the file and its permissions',
    );
  }
  let image;
  let view;
  try {
    image = await decodePng(bytes, file);
    view = readCaptureView(bytes, file);
  } catch (err) {
    throw new CohortFigureError(
      `the capture ${file} cannot be used: ${(err as Error).message}`,
      'run the playbook again to take it anew',
    );
  }
  return {
    file,
    inShard: file !== named,
    // Pixels only: what the capture's text chunks say (its provenance, its camera) is not the figure's to show.
    png: encodeRenderPng(image, false),
    width: image.width,
    height: image.height,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    view,
  };
}

function viewOf(tile: Tile, what: string): CaptureView {
  if (tile.view) return tile.view;
  throw new CohortFigureError(
    `the capture ${tile.file} records no camera, which ${what} needs`,
    'take it with a `screenshot` of a render window (stdmulti/axial, an MxN cell) by this wbplay: run the playbook again',
  );
}

/** Where a capture is drawn in its cell: as large as fits, its shape kept, centred. */
function fitted(cell: Rect, tile: { width: number; height: number }): Rect {
  const scale = Math.min(cell.width / tile.width, cell.height / tile.height);
  const width = tile.width * scale;
  const height = tile.height * scale;
  return { x: cell.x + (cell.width - width) / 2, y: cell.y + (cell.height - height) / 2, width, height };
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function lettersOf(style: CohortFigurePlan['letters'], count: number): string[] {
  if (style === 'none') return [];
  const letterOf = (i: number): string =>
    i < UPPER.length ? UPPER[i]! : letterOf(Math.floor(i / UPPER.length) - 1) + UPPER[i % UPPER.length]!;
  const letters = Array.from({ length: count }, (_, i) => letterOf(i));
  return style === 'lower' ? letters.map((l) => l.toLowerCase()) : letters;
}

/**
 * A capture by its path in the output folder, with `/`: the same on every machine. One in a
 * shard's folder is named as the merged report names it (`../shard-1/…`); any other outside
 * the folder by its file name alone.
 */
function shownPath(tile: Pick<Tile, 'file' | 'inShard'>, outputDir: string): string {
  const rel = relative(outputDir, tile.file).split('\\').join('/');
  return rel.startsWith('..') && !tile.inShard ? basename(tile.file) : rel;
}

function names(list: readonly string[]): string {
  const shown = list.slice(0, 5).map((n) => `\`${n}\``);
  if (list.length > 5) shown.push(`${list.length - 5} more`);
  return shown.length === 1 ? `the case ${shown[0]}` : `the cases ${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}
