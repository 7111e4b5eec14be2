import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { LayoutDocument } from '../client/index.js';
import { showFile } from './describe.js';
import { checkLayoutDocument } from './layout-document.js';
import { PASSED } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';

export interface LayoutArgs {
  /** Where the document came from, when it came from a file. */
  file?: string;
  /** The document to send; absent only when its file could not be read at compile time. */
  document?: Record<string, unknown>;
  /** Cell ids in document order, when the document is known. */
  cells?: string[];
}

export const layout: StepDefinition<'layout', LayoutArgs> = {
  kind: 'layout',
  summary: 'Replace the MxN layout with a layout document (version 2.0), from a JSON file or inline.',
  schema: object(
    {
      file: ref('file'),
      document: { description: 'The layout document itself (see layout.schema.json).', type: 'object' },
    },
    [],
    { minProperties: 1, maxProperties: 1 },
  ),
  compile(raw, ctx) {
    const r = raw as { file?: string; document?: Record<string, unknown> };
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
    await ctx.client.mxn.setLayout(document as unknown as LayoutDocument, { signal: ctx.signal });
    return PASSED;
  },
  describe(a) {
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
