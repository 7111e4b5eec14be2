import { basename, dirname, extname, join, resolve } from 'node:path';
import { closest } from '../../diagnostics/did-you-mean.js';
import { entry, type YMap, type YNode, type YScalar } from '../../playbook/tree.js';
import type { Artefact, SheetRecord } from '../../result/result.js';
import { VERSION } from '../../version.js';
import { object } from '../schema-defs.js';
import type { PostRunCompileContext, PostRunStage, StageCase } from './post-run-stage.js';

/** One figure tiling an image of every case, made once all cases have run. */
export interface ContactSheetPlan {
  /** Where the sheet is written (absolute). */
  save: string;
  columns?: number;
  /** Tiles are scaled to this width, keeping their aspect; default: the first tile's width. */
  tile_width?: number;
  /** Tiles per sheet: a large cohort gets numbered sheets and an index instead of one huge image. */
  per_sheet?: number;
  /** One per case, in case order; `file` is one of that case's outputs (absolute). */
  tiles: { case: string; file: string; label: string }[];
}

/**
 * The `contact_sheet` of a cohort playbook: one labelled PNG of an image of every study. The
 * drawing itself (`contact-sheet-image.ts`) is loaded only when a sheet is made.
 */
export const contactSheet: PostRunStage<'contact_sheet', ContactSheetPlan> = {
  key: 'contact_sheet',
  schema: object(
    {
      tile: {
        description:
          'Per study: the image of its case to show, e.g. ${out}/${study.name}/axial.png; a PNG screenshot of that case.',
        type: 'string',
        minLength: 1,
      },
      label: {
        description: 'Per study: the caption under its tile (default: the case name), e.g. ${study.name}.',
        type: 'string',
      },
      save: {
        description: 'Where the sheet is written, once for all studies: no ${study.…} here.',
        type: 'string',
        minLength: 1,
      },
      columns: {
        description: 'Tiles per row; default: the square root of the number of studies, rounded up.',
        type: 'integer',
        minimum: 1,
      },
      tile_width: {
        description:
          'Tiles are scaled to this width in pixels, keeping their aspect; default: the width of the first tile.',
        type: 'integer',
        minimum: 1,
        maximum: 16384,
      },
      per_sheet: {
        description:
          "At most this many tiles per sheet: more studies give numbered sheets (contact-sheet-001.png, …) and an index (contact-sheet-index.csv) naming each study's sheet.",
        type: 'integer',
        minimum: 1,
      },
    },
    ['tile', 'save'],
    { description: 'One PNG tiling an image of every study, labelled; needs `foreach`.' },
  ),
  compile: compileContactSheet,

  describe(sheet) {
    const layout = [
      sheet.columns !== undefined ? `${sheet.columns} columns` : undefined,
      sheet.tile_width !== undefined ? `tiles ${sheet.tile_width} px wide` : undefined,
      sheet.per_sheet !== undefined ? `${sheet.per_sheet} per sheet` : undefined,
    ].filter(Boolean);
    const width = Math.max(...sheet.tiles.map((t) => t.case.length));
    return [
      `Contact sheet of ${sheet.tiles.length} tile${sheet.tiles.length === 1 ? '' : 's'}${layout.length > 0 ? ` (${layout.join(', ')})` : ''} to ${sheet.save}`,
      ...sheet.tiles.map(
        (t) => `  ${t.case.padEnd(width)}  ${t.file}${t.label !== t.case ? `  label=${t.label}` : ''}`,
      ),
    ];
  },

  /**
   * The sheet over the studies of this run (a shard draws its own): a study that did not pass
   * shows as a grey tile saying so.
   */
  async run(sheet, ctx) {
    // Loaded by the run that makes a sheet, not by every command that reads a playbook.
    const [{ FileWriteError, writeFileAtomic }, { artefactAt }] = await Promise.all([
      import('../../files/atomic-write.js'),
      import('../../result/result.js'),
    ]);
    const ran = new Set(ctx.cases.map((c) => c.id));
    const tiles = sheet.tiles.filter((t) => ran.has(t.case));
    try {
      const { sheetNotes, writeContactSheet } = await import('./contact-sheet-image.js');
      const notes = sheetNotes(ctx.cases);
      const figures: Artefact[] = [];
      const index: string[] = ['sheet,case,label,tile'];
      for (const page of pagesOf(sheet.save, tiles, sheet.per_sheet)) {
        await writeContactSheet({ ...sheet, tiles: page.tiles }, notes, page.path, {
          playbook: ctx.playbook.path,
          playbookSha256: ctx.playbook.sha256,
          step: 'contact sheet',
          version: VERSION,
        });
        const recorded = page.tiles.map((t) => ({
          case: t.case,
          path: artefactAt(ctx.outputDir, t.file, 'screenshot').path,
          label: t.label,
        }));
        const paging =
          page.number !== undefined
            ? { per_sheet: sheet.per_sheet, page: page.number, save: basename(sheet.save) }
            : {};
        figures.push({
          ...artefactAt(ctx.outputDir, page.path, 'figure'),
          sheet: { ...layoutOf(sheet), ...paging, tiles: recorded },
        });
        for (const t of recorded) index.push([basename(page.path), t.case, t.label, t.path].map(csvField).join(','));
      }
      if (figures.length > 1) await writeFileAtomic(indexPath(sheet.save), `${index.join('\n')}\n`);
      return figures;
    } catch (err) {
      // A sheet the disk refused is a lost file of the run, which the run itself reports.
      if (err instanceof FileWriteError) throw err;
      ctx.notice(`the contact sheet ${sheet.save} could not be written: ${(err as Error).message}`);
      return [];
    }
  },

  owns: (figure) => figure.sheet !== undefined,

  /** Sheets of one name become one in the merged folder, with every shard's tiles in the merged case order. */
  merge(shards, cases) {
    const order = new Map(cases.map((c, i) => [c.id, i]));
    const sheets = new Map<string, Artefact & { sheet: SheetRecord }>();
    for (const shard of shards) {
      for (const f of shard.figures) {
        if (!f.sheet) continue;
        // The pages of a paginated sheet are one sheet here: they are paginated again below.
        const name = f.sheet.save ?? basename(f.path);
        const tiles = f.sheet.tiles.map((t) => ({ ...t, path: shard.relocate(t.path) }));
        const known = sheets.get(name);
        if (known) known.sheet.tiles.push(...tiles);
        else sheets.set(name, { ...f, path: name, sheet: { ...f.sheet, tiles } });
      }
    }
    for (const { sheet } of sheets.values())
      sheet.tiles.sort((a, b) => (order.get(a.case) ?? 0) - (order.get(b.case) ?? 0));
    return [...sheets.entries()].flatMap(([name, figure]) => {
      const { page: _page, ...sheet } = figure.sheet;
      if (sheet.per_sheet === undefined) return [{ ...figure, sheet }];
      return pagesOf(name, sheet.tiles, sheet.per_sheet).map((p) => ({
        ...figure,
        path: p.path,
        sheet: { ...sheet, ...(p.number !== undefined ? { page: p.number } : {}), tiles: p.tiles },
      }));
    });
  },

  async redraw(figure, cases, outputDir) {
    const sheet = figure.sheet;
    if (!sheet) return;
    const { sheetNotes, writeContactSheet } = await import('./contact-sheet-image.js');
    const tiles = sheet.tiles.map((t) => ({ case: t.case, file: resolve(outputDir, t.path), label: t.label }));
    await writeContactSheet({ ...layoutOf(sheet), tiles }, sheetNotes(cases), resolve(outputDir, figure.path));
  },
};

/** The sheets of a cohort: one at `save`, or `<save>-001.png`… of `perSheet` tiles each. */
function pagesOf<T>(
  save: string,
  tiles: readonly T[],
  perSheet: number | undefined,
): { path: string; number?: number; tiles: T[] }[] {
  if (perSheet === undefined || tiles.length <= perSheet) return [{ path: save, tiles: [...tiles] }];
  const ext = extname(save);
  const stem = save.slice(0, save.length - ext.length);
  const pages = [];
  for (let i = 0; i * perSheet < tiles.length; i++)
    pages.push({
      path: `${stem}-${String(i + 1).padStart(3, '0')}${ext}`,
      number: i + 1,
      tiles: tiles.slice(i * perSheet, (i + 1) * perSheet),
    });
  return pages;
}

function indexPath(save: string): string {
  const ext = extname(save);
  return join(dirname(save), `${basename(save, ext)}-index.csv`);
}

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function layoutOf(sheet: { columns?: number; tile_width?: number }): { columns?: number; tile_width?: number } {
  return {
    ...(sheet.columns !== undefined ? { columns: sheet.columns } : {}),
    ...(sheet.tile_width !== undefined ? { tile_width: sheet.tile_width } : {}),
  };
}

/**
 * `tile` and `label` expanded once per case with its study, `save` once for the whole run.
 * Checked against the compiled cases, so a tile names a file a screenshot of its own case
 * writes, and the sheet overwrites none of them.
 */
function compileContactSheet(ctx: PostRunCompileContext): ContactSheetPlan | undefined {
  if (ctx.studyVariable === undefined) {
    ctx.keyError(
      'NEEDS_FOREACH',
      '`contact_sheet` tiles the studies of a `foreach`, and this playbook has none',
      'add a `foreach:` over the studies, or drop `contact_sheet`',
    );
    return undefined;
  }
  const node = ctx.value;
  // A shape the top-level schema rejected is reported already.
  if (node.type !== 'map') return undefined;
  const tileNode = scalarAt(node, 'tile');
  const saveNode = scalarAt(node, 'save');
  if (!tileNode || !saveNode) return undefined;
  const labelNode = scalarAt(node, 'label');

  const save = compileSave(ctx, saveNode);
  let broken = false;
  const tiles: ContactSheetPlan['tiles'] = [];
  const unknown: { c: StageCase; file: string }[] = [];
  for (const c of ctx.cases) {
    // Without the studies (`fields: undefined`) the tile holds `<study.x>`, as do the outputs it is checked against.
    const tile = ctx.expand(tileNode, c);
    const label = labelNode ? ctx.expand(labelNode, c) : c.name;
    if (tile === undefined || label === undefined) {
      broken = true;
      continue;
    }
    const abs = ctx.resolvePath(tile);
    if (!c.outputs.includes(abs)) unknown.push({ c, file: abs });
    tiles.push({ case: c.id, file: abs, label });
  }

  const first = unknown[0];
  if (first) {
    const shown = ctx.displayPath(first.file);
    const more =
      unknown.length > 1 ? ` (nor for ${unknown.length - 1} other ${unknown.length === 2 ? 'study' : 'studies'})` : '';
    const written = first.c.outputs.map((o) => ctx.displayPath(o));
    const near = closest(shown, written);
    const hint =
      near !== undefined
        ? `did you mean \`${near}\`?`
        : written.length > 0
          ? `its screenshots are ${written.map((w) => `\`${w}\``).join(', ')}`
          : 'the case has no screenshot step; add one that saves this file';
    ctx.error(
      'UNKNOWN_TILE',
      ['tile'],
      `no screenshot step of study \`${first.c.name}\` saves its tile \`${shown}\`${more}`,
      hint,
    );
  }
  const jpeg = tiles.find((t) => /^\.jpe?g$/i.test(extname(t.file)));
  if (jpeg && !first) {
    ctx.error(
      'FORMAT_MISMATCH',
      ['tile'],
      `the tile \`${ctx.displayPath(jpeg.file)}\` is a JPEG; a contact sheet is made of PNG screenshots`,
      'tile a screenshot saved as .png',
    );
  }
  if (save === undefined || broken || first || jpeg) return undefined;

  const columns = integerAt(node, 'columns');
  const tileWidth = integerAt(node, 'tile_width');
  const perSheet = integerAt(node, 'per_sheet');
  return {
    save,
    ...(columns !== undefined ? { columns } : {}),
    ...(tileWidth !== undefined ? { tile_width: tileWidth } : {}),
    ...(perSheet !== undefined ? { per_sheet: perSheet } : {}),
    tiles,
  };
}

/** The sheet's own path: the same for every study, and no file a case writes. */
function compileSave(ctx: PostRunCompileContext, node: YScalar): string | undefined {
  const text = String(node.value);
  const refs = studyReferences(text, ctx.studyVariable ?? 'study');
  for (const r of refs) {
    ctx.textError(
      'STUDY_IN_SAVE',
      node,
      r.offset,
      r.length,
      `\`save\` is one file for the whole cohort, so it cannot use \`${text.slice(r.offset, r.offset + r.length)}\``,
      'use the playbook\'s variables only, e.g. "${out}/contact-sheet.png"',
    );
  }
  if (refs.length > 0) return undefined;
  const value = ctx.expand(node);
  if (value === undefined) return undefined;
  const save = ctx.resolvePath(value);
  const writer = ctx.cases.find((c) => c.outputs.includes(save));
  if (writer) {
    ctx.error(
      'OUTPUT_COLLISION',
      ['save'],
      `the contact sheet would overwrite \`${ctx.displayPath(save)}\`, a screenshot of study \`${writer.name}\``,
      'give the sheet its own file name',
    );
    return undefined;
  }
  const ext = extname(save);
  if (ext !== '' && ext.toLowerCase() !== '.png') {
    ctx.error('FORMAT_MISMATCH', ['save'], `the contact sheet is a PNG, not \`${ext}\``, 'name the file with .png');
    return undefined;
  }
  return save;
}

/** Where `text` uses the study (`${study}` or `${study.field}`); `$${` is a literal and does not count. */
function studyReferences(text: string, as: string): { offset: number; length: number }[] {
  const out: { offset: number; length: number }[] = [];
  for (const m of text.matchAll(new RegExp(`\\$\\{\\s*${as}(\\.[^}]*)?\\s*\\}`, 'g'))) {
    if (m.index > 0 && text[m.index - 1] === '$') continue;
    out.push({ offset: m.index, length: m[0].length });
  }
  return out;
}

function scalarAt(map: YMap, key: string): YScalar | undefined {
  const v: YNode | undefined = entry(map, key)?.value;
  return v?.type === 'scalar' && typeof v.value === 'string' ? v : undefined;
}

function integerAt(map: YMap, key: string): number | undefined {
  const v = entry(map, key)?.value;
  return v?.type === 'scalar' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 1
    ? v.value
    : undefined;
}
