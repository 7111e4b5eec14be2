import { extname } from 'node:path';
import type { Annotation, Corner } from '../../figure/annotation-kinds.js';
import { FIGURE_FORMATS, type FigureFormat } from '../../figure/compose.js';
import { gridGeometry, isGeometryProblem } from '../../figure/geometry.js';
import { lengthInPixels, pointsInPixels } from '../../figure/length.js';
import { closest } from '../../diagnostics/did-you-mean.js';
import { entry, toPlain, type YMap, type YNode, type YScalar } from '../../playbook/tree.js';
import type { Rgb } from '../../image/rgba.js';
import { compileAnnotations, type RawAnnotation } from '../figure-annotations.js';
import type { ValuePath } from '../step-definition.js';
import type { CaseChoice, CohortColumn, CohortFigurePlan, CohortRow } from './cohort-figure-plan.js';
import type { PostRunCompileContext, StageCase } from './post-run-stage.js';

/*
 * `cohort_figure` compiled against the playbook's cases: each chosen case's row label, captures
 * and annotations expanded with its study, every capture checked to be a PNG screenshot of its
 * own case, and the figure's geometry checked to leave room for its panels.
 */

const DEFAULT_DPI = 300;
const DEFAULT_POINTS = 8;
/** The keys of an annotation that hold points of the patient, by kind. */
const POINT_KEYS: Record<string, readonly string[]> = {
  arrow: ['to'],
  circle: ['at'],
  text: ['at'],
  ruler: ['from', 'to'],
};

export function compileCohortFigure(ctx: PostRunCompileContext): CohortFigurePlan | undefined {
  if (ctx.studyVariable === undefined) {
    ctx.keyError(
      'NEEDS_FOREACH',
      '`cohort_figure` shows studies of a `foreach`, and this playbook has none',
      'add a `foreach:` over the studies, or drop `cohort_figure`',
    );
    return undefined;
  }
  const node = ctx.value;
  // A shape the top-level schema rejected is reported already.
  if (node.type !== 'map') return undefined;
  const plain = toPlain(node) as RawCohortFigure;
  const columnsNode = entry(node, 'columns')?.value;
  const saveNode = scalarAt(node, 'save');
  if (!saveNode || columnsNode?.type !== 'seq' || !plain.width || columnsNode.items.length === 0) return undefined;

  const dpi = plain.dpi ?? DEFAULT_DPI;
  let broken = false;
  const px = (key: string, text: string): number => {
    const value = lengthInPixels(text, dpi);
    if (value !== undefined && value > 0) return Math.round(value);
    ctx.error('BAD_LENGTH', [key], `\`${key}\` is not a length`, 'write a number and a unit: 89mm, 3.5in, 2000px');
    broken = true;
    return 1;
  };
  const save = compileSave(ctx, saveNode);
  const chosen = chooseCases(ctx, entry(node, 'cases')?.value);
  const labelNode = scalarAt(node, 'row_label');
  const columns: CohortColumn[] = [];
  // Cases that could not be chosen still have their captures and points checked, against every study.
  const rowCases = chosen?.cases ?? [...ctx.cases];
  const rows: CohortRow[] = rowCases.map((c) => ({
    case: c.id,
    name: c.name,
    label: c.name,
    tiles: [],
    annotations: [],
  }));
  for (const [i, row] of rows.entries()) {
    const c = rowCases[i]!;
    if (!labelNode) continue;
    const label = ctx.expand(labelNode, c);
    if (label === undefined) broken = true;
    else row.label = label;
  }
  for (const [col, colNode] of columnsNode.items.entries()) {
    if (colNode.type !== 'map') return undefined;
    const raw = plain.columns[col]!;
    const tileNode = scalarAt(colNode, 'tile');
    if (!tileNode) return undefined;
    columns.push(columnOf(raw));
    if (!checkTiles(ctx, col, tileNode, rows, rowCases)) broken = true;
    const annotationsNode = entry(colNode, 'annotations')?.value;
    if (annotationsNode?.type === 'seq' && annotationsNode.items.length > 0) {
      const at = ['columns', col, 'annotations'];
      const said = { point: false };
      for (const [i, row] of rows.entries()) {
        const list = annotationsOf(ctx, annotationsNode, at, dpi, rowCases[i]!, i === 0, said);
        if (list === undefined) broken = true;
        row.annotations.push(list ?? []);
      }
    } else for (const row of rows) row.annotations.push([]);
  }

  const width = px('width', plain.width);
  const height = plain.height !== undefined ? px('height', plain.height) : undefined;
  const margin = px('margin', plain.margin ?? '1mm');
  const gap = px('gap', plain.gap ?? '1mm');
  const fontPx = pointsInPixels(plain.font_size ?? DEFAULT_POINTS, dpi);
  const legend = plain.legend?.entries ?? [];
  if (chosen && rows.length > 0 && !broken) {
    const fits = gridGeometry({
      width,
      ...(height !== undefined ? { height } : {}),
      // The review chooses the rows later: at least one row must fit.
      rows: chosen.choice.by === 'representative' ? 1 : rows.length,
      columns: columns.length,
      margin,
      gap,
      fontPx,
      columnHeadings: columns.some((c) => c.heading !== undefined),
      rowHeadings: true,
      titles: false,
      aspect: 1,
      legendLines: legend.length > 0 ? 1 : 0,
    });
    if (isGeometryProblem(fits)) {
      ctx.error('FIGURE_TOO_SMALL', [height !== undefined ? 'height' : 'width'], fits.problem, fits.hint);
      broken = true;
    }
  }
  if (save === undefined || chosen === undefined || broken) return undefined;

  const formats = plain.formats ?? ['png', 'svg'];
  const files: CohortFigurePlan['files'] = {};
  for (const f of FIGURE_FORMATS.filter((f) => formats.includes(f)))
    files[f] = f === 'png' ? save : save.replace(/\.png$/i, `.${f}`);
  return {
    choice: chosen.choice,
    rows,
    columns,
    save,
    files,
    dpi,
    width,
    ...(height !== undefined ? { height } : {}),
    margin,
    gap,
    fontPx,
    letters: plain.letters ?? 'upper',
    background: plain.background ?? [1, 1, 1],
    textColor: plain.text_color ?? [0, 0, 0],
    letterColor: plain.letter_color ?? [1, 1, 1],
    legend,
  };
}

interface RawColumn {
  tile: string;
  heading?: string;
  scale_bar?: number | { length: number; color?: Rgb; corner?: Corner };
  annotations?: unknown[];
}

interface RawCohortFigure {
  cases?: unknown;
  row_label?: string;
  columns: RawColumn[];
  save: string;
  formats?: FigureFormat[];
  width: string;
  height?: string;
  dpi?: number;
  letters?: 'upper' | 'lower' | 'none';
  font_size?: number;
  margin?: string;
  gap?: string;
  background?: Rgb;
  text_color?: Rgb;
  letter_color?: Rgb;
  legend?: { entries?: Array<{ name: string; color: Rgb }> };
}

function columnOf(raw: RawColumn): CohortColumn {
  const bar = typeof raw.scale_bar === 'number' ? { length: raw.scale_bar } : raw.scale_bar;
  return {
    ...(raw.heading !== undefined ? { heading: raw.heading } : {}),
    ...(bar !== undefined
      ? {
          scaleBar: {
            mm: bar.length,
            color: ('color' in bar ? bar.color : undefined) ?? [1, 1, 1],
            ...('corner' in bar && bar.corner !== undefined ? { corner: bar.corner } : {}),
          },
        }
      : {}),
  };
}

/**
 * The chosen cases in the figure's order: the names as listed, the matches of `where` in the
 * playbook's order, or (`representative`, chosen later by the review) every case.
 */
function chooseCases(
  ctx: PostRunCompileContext,
  node: YNode | undefined,
): { choice: CaseChoice; cases: StageCase[] } | undefined {
  if (node === undefined || (node.type === 'scalar' && node.value === 'representative'))
    return { choice: { by: 'representative' }, cases: [...ctx.cases] };
  if (node.type === 'seq') return byName(ctx, node);
  if (node.type !== 'map') return undefined;
  const whereNode = entry(node, 'where')?.value;
  if (whereNode?.type !== 'map') return undefined;
  const where: Record<string, Array<string | number | boolean>> = {};
  for (const e of whereNode.entries) {
    const value = toPlain(e.value);
    where[e.key] = (Array.isArray(value) ? value : [value]) as Array<string | number | boolean>;
  }
  const known = ctx.cases.filter((c) => c.study !== undefined);
  // Without the studies (a playbook checked without its archive) nothing can be matched yet.
  if (known.length === 0) return { choice: { by: 'where', where }, cases: [] };
  for (const field of Object.keys(where)) {
    if (known.some((c) => field in (c.study ?? {}))) continue;
    const fields = Object.keys(known[0]!.study ?? {});
    const near = closest(field, fields);
    ctx.error(
      'UNKNOWN_FIELD',
      ['cases', 'where', field],
      `no study has the field \`${field}\``,
      near !== undefined ? `did you mean \`${near}\`?` : `the studies have ${fields.map((f) => `\`${f}\``).join(', ')}`,
      true,
    );
    return undefined;
  }
  const cases = known.filter((c) =>
    Object.entries(where).every(([field, values]) => values.some((v) => sameValue(c.study?.[field], v))),
  );
  if (cases.length === 0) {
    ctx.error(
      'NOTHING_TO_DO',
      ['cases', 'where'],
      'no study matches `where`, so the figure would have no rows',
      'check the values against the manifest, or list the cases by name',
    );
    return undefined;
  }
  return { choice: { by: 'where', where }, cases };
}

function byName(ctx: PostRunCompileContext, node: Extract<YNode, { type: 'seq' }>) {
  const cases: StageCase[] = [];
  // Without the studies (a manifest that could not be read, reported already) no name can be checked.
  if (!ctx.cases.some((c) => c.study !== undefined)) return { choice: { by: 'name' } as const, cases };
  let broken = false;
  for (const [i, item] of node.items.entries()) {
    const name = item.type === 'scalar' ? String(item.value) : '';
    const found = ctx.cases.find((c) => c.name === name) ?? ctx.cases.find((c) => c.id === name);
    if (!found) {
      const near = closest(
        name,
        ctx.cases.map((c) => c.name),
      );
      ctx.error(
        'UNKNOWN_CASE',
        ['cases', i],
        `no case of this playbook is named \`${name}\``,
        near !== undefined ? `did you mean \`${near}\`?` : 'name cases as the report does (`wbplay plan` lists them)',
      );
      broken = true;
    } else if (cases.includes(found)) {
      ctx.error('UNKNOWN_CASE', ['cases', i], `the case \`${name}\` is listed twice`, 'list each case once');
      broken = true;
    } else cases.push(found);
  }
  return broken ? undefined : { choice: { by: 'name' } as const, cases };
}

/** A manifest's value against one in `where`: numbers as numbers, the rest as text. */
function sameValue(field: unknown, wanted: string | number | boolean): boolean {
  if (field === undefined || field === null) return false;
  if (typeof wanted === 'number') return Number(field) === wanted;
  return String(field) === String(wanted);
}

/** Each row's capture of column `col`: a PNG a screenshot step of that very case saves. */
function checkTiles(
  ctx: PostRunCompileContext,
  col: number,
  node: YScalar,
  rows: CohortRow[],
  cases: readonly StageCase[],
): boolean {
  let ok = true;
  let reported = false;
  for (const [i, row] of rows.entries()) {
    const c = cases[i]!;
    const tile = ctx.expand(node, c);
    if (tile === undefined) {
      ok = false;
      continue;
    }
    const file = ctx.resolvePath(tile);
    row.tiles.push(file);
    if (reported) continue;
    if (!c.outputs.includes(file)) {
      const written = c.outputs.map((o) => ctx.displayPath(o));
      const near = closest(ctx.displayPath(file), written);
      ctx.error(
        'UNKNOWN_TILE',
        ['columns', col, 'tile'],
        `no screenshot step of study \`${c.name}\` saves \`${ctx.displayPath(file)}\``,
        near !== undefined
          ? `did you mean \`${near}\`?`
          : written.length > 0
            ? `its screenshots are ${written.map((w) => `\`${w}\``).join(', ')}`
            : 'the case has no screenshot step; add one that saves this file',
      );
      reported = true;
      ok = false;
    } else if (extname(file).toLowerCase() !== '.png') {
      ctx.error(
        'FORMAT_MISMATCH',
        ['columns', col, 'tile'],
        `the capture \`${ctx.displayPath(file)}\` is not a PNG; only a PNG records the camera its scale bar and annotations need`,
        'show a screenshot saved as .png',
      );
      reported = true;
      ok = false;
    }
  }
  return ok;
}

/**
 * One case's annotations of a column: every text expanded with its study, so a point may come
 * from the manifest (`at: ["${study.x}", "${study.y}", "${study.z}"]`). Problems that do not
 * depend on the study (a bad length) are reported for the first row only, a point that is not
 * numbers for the first study it is not.
 */
function annotationsOf(
  ctx: PostRunCompileContext,
  node: YNode,
  at: ValuePath,
  dpi: number,
  c: StageCase,
  report: boolean,
  said: { point: boolean },
): Annotation[] | undefined {
  let broken = false;
  const expandAll = (n: YNode): unknown => {
    if (n.type === 'scalar') {
      if (typeof n.value !== 'string') return n.value;
      const text = ctx.expand(n, c);
      if (text === undefined) broken = true;
      return text;
    }
    if (n.type === 'seq') return n.items.map(expandAll);
    return Object.fromEntries(n.entries.map((e) => [e.key, expandAll(e.value)]));
  };
  const raw = expandAll(node) as Array<Record<string, Record<string, unknown>>>;
  if (broken) return undefined;
  // Without the study's fields its points are placeholders, checked once the studies are known.
  if (c.study === undefined) return [];
  for (const [i, item] of raw.entries()) {
    const [kind, value] = Object.entries(item)[0] ?? [];
    if (kind === undefined || value === undefined) continue;
    for (const key of POINT_KEYS[kind] ?? []) {
      const point = value[key];
      const numbers = Array.isArray(point)
        ? point.map((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v))
        : [];
      if (numbers.length !== 3 || !numbers.every((v) => typeof v === 'number' && Number.isFinite(v))) {
        // One error for the column: the other studies' points come from the same columns.
        if (said.point) return undefined;
        said.point = true;
        ctx.error(
          'BAD_VECTOR',
          [...at, i, kind, key],
          `\`${key}\` of ${kind} ${i + 1} is not three numbers for study \`${c.name}\`: ${JSON.stringify(point)}`,
          "give millimetres in the patient, e.g. [12.5, -4, 30], or the study's columns that hold them",
        );
        return undefined;
      }
      value[key] = numbers;
    }
  }
  const silent = { error: () => undefined };
  return compileAnnotations(
    raw as unknown as RawAnnotation[],
    at,
    dpi,
    report ? { error: ctx.error.bind(ctx) } : silent,
  );
}

/** The figure's own path: the same for every study, a PNG, and no file a case writes. */
function compileSave(ctx: PostRunCompileContext, node: YScalar): string | undefined {
  const text = String(node.value);
  const as = ctx.studyVariable ?? 'study';
  const study = new RegExp(`(?<!\\$)\\$\\{\\s*${as}(\\.[^}]*)?\\s*\\}`).exec(text);
  if (study) {
    ctx.textError(
      'STUDY_IN_SAVE',
      node,
      study.index,
      study[0].length,
      `\`save\` is one file for the whole figure, so it cannot use \`${study[0]}\``,
      'use the playbook\'s variables only, e.g. "${out}/cases-figure.png"',
    );
    return undefined;
  }
  const value = ctx.expand(node);
  if (value === undefined) return undefined;
  const save = ctx.resolvePath(value);
  const writer = ctx.cases.find((c) => c.outputs.includes(save));
  if (writer) {
    ctx.error(
      'OUTPUT_COLLISION',
      ['save'],
      `the cohort figure would overwrite \`${ctx.displayPath(save)}\`, a screenshot of study \`${writer.name}\``,
      'give the figure its own file name',
    );
    return undefined;
  }
  return save;
}

function scalarAt(map: YMap, key: string): YScalar | undefined {
  const v = entry(map, key)?.value;
  return v?.type === 'scalar' && typeof v.value === 'string' ? v : undefined;
}
