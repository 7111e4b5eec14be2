import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { LayoutDocument } from '../client/index.js';
import { showFile, showVec } from './describe.js';
import { checkLayoutDocument } from './layout-document.js';
import { PASSED } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { NodeRef, StepCompileContext, StepDefinition } from './step-definition.js';

export interface LayoutArgs {
  /** Where the document came from, when it came from a file. */
  file?: string;
  /** The document to send; absent only when its file could not be read at compile time. */
  document?: Record<string, unknown>;
  /** Cell ids in document order, when the document is known. */
  cells?: string[];
  /** A grid built from rows and columns: which nodes each cell shows and hides, and where all cells go. */
  grid?: GridArgs;
}

export interface GridArgs {
  rows: number;
  columns: number;
  cells: Array<{ id: string; show: NodeRef[]; hide: NodeRef[] }>;
  at?: [number, number, number];
}

const VIEWS = ['axial', 'coronal', 'sagittal', 'original'] as const;
type View = (typeof VIEWS)[number];

export const layout: StepDefinition<'layout', LayoutArgs> = {
  kind: 'layout',
  summary:
    'Replace the MxN layout: a layout document (version 2.0) from a JSON file or inline, or a grid of rows (node sets) and columns (view directions).',
  schema: object(
    {
      file: ref('file'),
      document: { description: 'The layout document itself (see layout.schema.json).', type: 'object' },
      rows: {
        description: 'A grid: one row per set of nodes; each cell of the row shows these nodes and hides every other.',
        type: 'array',
        minItems: 1,
        items: object(
          {
            name: {
              description: 'Names the row in cell ids (`mxn/mxn__<name>_<column>`); default r1, r2, …',
              type: 'string',
              pattern: '^[A-Za-z0-9.-]+$',
            },
            nodes: { description: 'The nodes this row shows.', type: 'array', minItems: 1, items: ref('node') },
          },
          ['nodes'],
          { description: 'One row of the grid.' },
        ),
      },
      columns: {
        description: 'A grid: the view direction of each column.',
        type: 'array',
        minItems: 1,
        items: { description: 'A 2D view direction.', enum: [...VIEWS] },
      },
      at: { ...ref('vec3'), description: 'A grid: move every cell to this position [x, y, z] (world mm).' },
    },
    [],
    { minProperties: 1 },
  ),
  compile(raw, ctx) {
    const r = raw as RawLayout;
    const forms = (['file', 'document', 'rows'] as const).filter((k) => r[k] !== undefined);
    if (forms.length !== 1) {
      ctx.keyError(
        'EXCLUSIVE_FIELDS',
        [forms[1] ?? Object.keys(r)[0] ?? 'file'],
        forms.length === 0
          ? '`layout` needs `file`, `document` or `rows`'
          : `\`${forms.join('` and `')}\` cannot be combined`,
        'give a layout file, an inline document, or a grid of `rows` and `columns`',
      );
      return {};
    }
    if (r.rows !== undefined) return compileGrid(r, ctx);
    for (const key of ['columns', 'at'] as const)
      if (r[key] !== undefined)
        ctx.keyError(
          'EXCLUSIVE_FIELDS',
          [key],
          `\`${key}\` belongs to a grid of \`rows\``,
          'add `rows`, or leave it out',
        );
    let document = r.document;
    let file: string | undefined;
    let where: (string | number)[] = ['document'];
    if (r.file !== undefined) {
      file = ctx.inputFile(r.file, ['file']);
      where = ['file'];
      document = readLayout(file, ctx.checkFiles, (message, hint) =>
        ctx.error('LAYOUT_INVALID', ['file'], message, hint),
      );
    }
    if (document === undefined) {
      ctx.setLayoutCells(undefined);
      return { ...(file ? { file } : {}) };
    }
    const checked = checkLayoutDocument(document);
    for (const p of checked.problems) {
      if (file === undefined) ctx.error('LAYOUT_INVALID', [...where, ...p.path], p.message, p.hint);
      else
        ctx.error(
          'LAYOUT_INVALID',
          where,
          `${showFile(file)}${p.path.length ? ` at /${p.path.join('/')}` : ''}: ${p.message}`,
          p.hint,
        );
    }
    ctx.setLayoutCells(checked.cells);
    return { ...(file ? { file } : {}), document, cells: checked.cells };
  },
  async run(a, ctx) {
    // A file unreadable at compile time (planned without --check-files) is read now.
    const document = a.document ?? (JSON.parse(await readFile(a.file ?? '', 'utf8')) as Record<string, unknown>);
    const call = { signal: ctx.signal };
    await ctx.client.mxn.setLayout(document as unknown as LayoutDocument, call);
    if (!a.grid) return PASSED;
    const uids = new Map<NodeRef, string>();
    for (const cell of a.grid.cells)
      for (const node of [...cell.show, ...cell.hide]) if (!uids.has(node)) uids.set(node, await ctx.resolveNode(node));
    for (const cell of a.grid.cells) {
      const window = ctx.client.mxn.window(cell.id);
      for (const node of cell.show) await window.setNodeVisible(uids.get(node)!, true, call);
      for (const node of cell.hide) await window.setNodeVisible(uids.get(node)!, false, call);
      if (a.grid.at) await window.setSelectedPosition(a.grid.at, call);
    }
    return PASSED;
  },
  describe(a) {
    if (a.grid)
      return `apply a ${a.grid.rows}×${a.grid.columns} MxN grid${a.grid.at ? ` at ${showVec(a.grid.at)}` : ''} (${a.grid.cells.map((c) => c.id).join(', ')})`;
    const from = a.file ? showFile(a.file) : 'inline document';
    return `apply the MxN layout ${from}${a.cells ? ` (${a.cells.length} cell${a.cells.length === 1 ? '' : 's'})` : ''}`;
  },
};

function readLayout(
  file: string,
  mustExist: boolean,
  fail: (message: string, hint: string) => void,
): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // A missing file was already reported by inputFile when files are checked.
    return undefined;
  }
  try {
    const doc: unknown = JSON.parse(text);
    if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) return doc as Record<string, unknown>;
    fail(`${showFile(file)} is not a JSON object`, 'a layout document is an object with `version` and `root`');
  } catch (err) {
    if (mustExist || text !== undefined)
      fail(`${showFile(file)} is not valid JSON: ${(err as Error).message}`, 'fix the JSON syntax of the layout file');
  }
  return undefined;
}

interface RawLayout {
  file?: string;
  document?: Record<string, unknown>;
  rows?: Array<{ name?: string; nodes: string[] }>;
  columns?: View[];
  at?: [number, number, number];
}

/**
 * The layout document of a grid: one split per row, one cell per column, each row its own
 * selection group; every cell shows the nodes of its row and hides the other nodes the playbook
 * loaded before this step.
 */
function compileGrid(r: RawLayout, ctx: StepCompileContext): LayoutArgs {
  const rows = r.rows ?? [];
  if (r.columns === undefined) {
    ctx.keyError(
      'MISSING_FIELD',
      ['rows'],
      'a grid of `rows` needs `columns`',
      'add e.g. `columns: [axial, coronal, sagittal]`',
    );
    return {};
  }
  const columns = r.columns;
  const names = rows.map((row, i) => row.name ?? `r${i + 1}`);
  names.forEach((name, i) => {
    if (names.indexOf(name) !== i)
      ctx.error('BAD_VALUE', ['rows', i, 'name'], `two rows are named \`${name}\``, 'give every row its own name');
  });
  const columnIds = columns.map((view, c) => (columns.indexOf(view) === c ? view : `${view}${c + 1}`));
  const known = ctx.knownAliases();
  const cells: GridArgs['cells'] = [];
  const documentRows = rows.map((row, i) => {
    const show = row.nodes.flatMap((n, k) => ctx.node(n, ['rows', i, 'nodes', k]) ?? []);
    const hide = known.filter((alias) => !row.nodes.includes(alias)).map((alias) => ({ ref: alias }));
    return {
      type: 'split',
      orientation: 'horizontal',
      children: columns.map((view, c) => {
        const id = `mxn__${names[i]}_${columnIds[c]}`;
        cells.push({ id, show, hide });
        return {
          type: 'window',
          id,
          name: `${names[i]} ${view}`,
          view_direction: view,
          links: { selection: names[i] },
        };
      }),
    };
  });
  const document = {
    version: '2.0',
    name: `${rows.length}x${columns.length} grid`,
    groups: Object.fromEntries(names.map((name) => [name, { select_all: true }])),
    root: rows.length === 1 ? documentRows[0] : { type: 'split', orientation: 'vertical', children: documentRows },
  };
  // Row names and view directions come from the playbook: the built document is held to the
  // same schema as a written one.
  for (const p of checkLayoutDocument(document).problems) ctx.error('LAYOUT_INVALID', ['rows'], p.message, p.hint);
  ctx.setLayoutCells(cells.map((c) => c.id));
  return {
    document,
    cells: cells.map((c) => c.id),
    grid: { rows: rows.length, columns: columns.length, cells, ...(r.at ? { at: r.at } : {}) },
  };
}
