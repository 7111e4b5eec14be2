import { extname, resolve } from 'node:path';
import type { Span } from '../diagnostics/diagnostic.js';
import { closest } from '../diagnostics/did-you-mean.js';
import { displayPath } from '../playbook/source.js';
import { entry, type YMap, type YNode, type YScalar } from '../playbook/tree.js';
import type { Foreach } from './foreach.js';
import { expandNode, type Scope, type TemplateProblem } from './interpolate.js';
import type { PlanCase, PlanContactSheet } from './plan.js';
import type { LoadedFile, Session } from './session.js';

export interface SheetContext {
  session: Session;
  file: LoadedFile;
  /** The playbook's variables without a study: what `save` sees. */
  scope: Scope;
  foreach: Foreach | undefined;
  cases: readonly PlanCase[];
}

/**
 * The `contact_sheet` of a playbook: `tile` and `label` expanded once per case with its study,
 * `save` once for the whole run. Checked against the compiled cases, so a tile names a file a
 * screenshot of its own case writes, and the sheet overwrites none of them.
 */
export function compileContactSheet(ctx: SheetContext): PlanContactSheet | undefined {
  const { session, file, foreach } = ctx;
  const found = file.root ? entry(file.root, 'contact_sheet') : undefined;
  if (!found) return undefined;
  const source = file.source;
  if (!foreach) {
    session.error('NEEDS_FOREACH', '`contact_sheet` tiles the studies of a `foreach`, and this playbook has none', 'add a `foreach:` over the studies, or drop `contact_sheet`', source.span(found.keyRange.start, found.keyRange.end));
    return undefined;
  }
  const node = found.value;
  // A shape the top-level schema rejected is reported already.
  if (node.type !== 'map') return undefined;
  const tileNode = scalarAt(node, 'tile');
  const saveNode = scalarAt(node, 'save');
  if (!tileNode || !saveNode) return undefined;
  const labelNode = scalarAt(node, 'label');
  const at = (key: string): Span => session.spanAt(source, node, [key], false);
  const expand = (n: YScalar, scope: Scope): string | undefined => {
    let failed = false;
    const value = expandNode(n, scope, (s, p) => {
      failed = true;
      if (!p.silent) session.error(p.code, p.message, p.hint, session.templateSpan(source, s, p));
    });
    return failed ? undefined : String(value);
  };

  const save = compileSave(ctx, saveNode, expand, at);
  let broken = false;
  const tiles: PlanContactSheet['tiles'] = [];
  const unknown: { c: PlanCase; file: string }[] = [];
  for (const c of ctx.cases) {
    // Without the studies (`fields: undefined`) the tile holds `<study.x>`, as do the outputs it is checked against.
    const scope: Scope = { ...ctx.scope, study: { as: foreach.as, fields: c.study } };
    const tile = expand(tileNode, scope);
    const label = labelNode ? expand(labelNode, scope) : c.name;
    if (tile === undefined || label === undefined) {
      broken = true;
      continue;
    }
    const abs = resolve(file.dir, tile);
    if (!c.outputs.includes(abs)) unknown.push({ c, file: abs });
    tiles.push({ case: c.id, file: abs, label });
  }

  const root = session.options.displayRoot;
  const first = unknown[0];
  if (first) {
    const shown = displayPath(first.file, root);
    const more = unknown.length > 1 ? ` (nor for ${unknown.length - 1} other ${unknown.length === 2 ? 'study' : 'studies'})` : '';
    const written = first.c.outputs.map((o) => displayPath(o, root));
    const near = closest(shown, written);
    const hint = near !== undefined ? `did you mean \`${near}\`?` : written.length > 0 ? `its screenshots are ${written.map((w) => `\`${w}\``).join(', ')}` : 'the case has no screenshot step; add one that saves this file';
    session.error('UNKNOWN_TILE', `no screenshot step of study \`${first.c.name}\` saves its tile \`${shown}\`${more}`, hint, at('tile'));
  }
  const jpeg = tiles.find((t) => /^\.jpe?g$/i.test(extname(t.file)));
  if (jpeg && !first) {
    session.error('FORMAT_MISMATCH', `the tile \`${displayPath(jpeg.file, root)}\` is a JPEG; a contact sheet is made of PNG screenshots`, 'tile a screenshot saved as .png', at('tile'));
  }
  if (save === undefined || broken || first || jpeg) return undefined;

  const columns = integerAt(node, 'columns');
  const tileWidth = integerAt(node, 'tile_width');
  return { save, ...(columns !== undefined ? { columns } : {}), ...(tileWidth !== undefined ? { tile_width: tileWidth } : {}), tiles };
}

/** The sheet's own path: the same for every study, and no file a case writes. */
function compileSave(ctx: SheetContext, node: YScalar, expand: (n: YScalar, scope: Scope) => string | undefined, at: (key: string) => Span): string | undefined {
  const { session, file, foreach } = ctx;
  const text = String(node.value);
  const refs = studyReferences(text, foreach?.as ?? 'study');
  for (const r of refs) {
    const problem: TemplateProblem = { code: 'STUDY_IN_SAVE', message: '', offset: r.offset, length: r.length };
    session.error('STUDY_IN_SAVE', `\`save\` is one file for the whole cohort, so it cannot use \`${text.slice(r.offset, r.offset + r.length)}\``, 'use the playbook\'s variables only, e.g. "${out}/contact-sheet.png"', session.templateSpan(file.source, node, problem));
  }
  if (refs.length > 0) return undefined;
  const value = expand(node, ctx.scope);
  if (value === undefined) return undefined;
  const save = resolve(file.dir, value);
  const writer = ctx.cases.find((c) => c.outputs.includes(save));
  if (writer) {
    session.error('OUTPUT_COLLISION', `the contact sheet would overwrite \`${displayPath(save, session.options.displayRoot)}\`, a screenshot of study \`${writer.name}\``, 'give the sheet its own file name', at('save'));
    return undefined;
  }
  const ext = extname(save);
  if (ext !== '' && ext.toLowerCase() !== '.png') {
    session.error('FORMAT_MISMATCH', `the contact sheet is a PNG, not \`${ext}\``, 'name the file with .png', at('save'));
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
  return v?.type === 'scalar' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 1 ? v.value : undefined;
}
