import type { ViewDirection } from '../render/types.js';

/**
 * The MxN editor's layout document (REST-era schema 2.0; 3.0 accepted) and the live cell
 * tree built from it. Loading runs in two phases like MITK's: a validation walk that rejects a
 * document while the old cells still exist, then the build, whose failures come after the old
 * cells were torn down (the editor then falls back to one default cell).
 */
export interface LayoutWindow {
  type: 'window';
  id: string;
  name?: string;
  viewDirection: ViewDirection;
  group: string;
  weight: number;
}

export interface LayoutSplit {
  type: 'split';
  orientation: 'horizontal' | 'vertical';
  weight: number;
  children: LayoutNode[];
}

export type LayoutNode = LayoutWindow | LayoutSplit;

export interface Layout {
  /** Top-level `name` of the last applied document; omitted from answers when absent. */
  name?: string;
  groups: Map<string, { selectAll: boolean }>;
  root: LayoutSplit;
}

/** Why a document was refused, and whether the old cells were already gone by then. */
export class LayoutError extends Error {
  constructor(
    message: string,
    readonly afterTeardown: boolean,
  ) {
    super(message);
    this.name = 'LayoutError';
  }
}

export const EDITOR_PREFIX = 'mxn__';
export const DEFAULT_CELL_ID = `${EDITOR_PREFIX}widget0`;

const VIEW_DIRECTIONS: readonly string[] = ['axial', 'sagittal', 'coronal', 'original'];
/** Link dimensions a 3.0 document may carry besides `selection` (they do not sync anything here). */
const V3_LINKS = new Set(['selection', 'pan', 'zoom', 'slice', 'crosshair', 'orientation', 'windowing', 'lut']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One cell `mxn__widget0` (axial, group `main`): a freshly opened editor and the rollback. */
export function defaultLayout(): Layout {
  return {
    groups: new Map([['main', { selectAll: true }]]),
    root: {
      type: 'split',
      orientation: 'horizontal',
      weight: 1,
      children: [{ type: 'window', id: DEFAULT_CELL_ID, viewDirection: 'axial', group: 'main', weight: 1 }],
    },
  };
}

export function parseLayout(doc: unknown): Layout {
  validate(doc);
  return build(doc as Json);
}

const reject = (message: string): never => {
  throw new LayoutError(message, false);
};

function validate(doc: unknown): void {
  if (!isObject(doc)) return reject('Layout document must be a JSON object.');
  const version = doc.version;
  if (typeof version !== 'string') return reject("Layout document has no 'version' string.");
  if (version !== '2.0' && version !== '3.0') {
    const hint = version.startsWith('1.') ? ' Convert version 1 layouts with the v1-to-v2 migration script first.' : '';
    return reject(`Layout document version is '${version}'; only '2.0' and '3.0' are supported.${hint}`);
  }
  if (!isObject(doc.root)) return reject("Layout document has no 'root' object.");
  const groups = doc.groups;
  if (groups !== undefined) {
    if (!isObject(groups)) return reject("'groups' must be an object.");
    for (const [name, entry] of Object.entries(groups)) {
      if (!isObject(entry)) return reject(`Group '${name}' must be an object.`);
      if (entry.select_all !== undefined && typeof entry.select_all !== 'boolean') {
        return reject(`Layout document JSON error: 'select_all' of group '${name}' must be a boolean.`);
      }
    }
  }
  if (doc.root.type !== 'split') return reject("The layout 'root' must be a split node.");
  walk(doc.root, { ids: new Set(), groups: isObject(groups) ? groups : undefined, v3: version === '3.0' });
}

function walk(node: unknown, ctx: { ids: Set<string>; groups: Json | undefined; v3: boolean }): void {
  if (!isObject(node)) return reject('Layout node must be a JSON object.');
  if (typeof node.type !== 'string') return reject("Layout node has no 'type' string.");
  if (node.type === 'split') {
    if (node.orientation !== 'horizontal' && node.orientation !== 'vertical') {
      return reject("Split node has no valid 'orientation' (expected 'horizontal' or 'vertical').");
    }
    if (!Array.isArray(node.children) || node.children.length === 0)
      return reject("Split node has no non-empty 'children' array.");
    for (const child of node.children) walk(child, ctx);
    return;
  }
  if (node.type !== 'window') return reject(`Unknown layout node type '${node.type}' (expected 'split' or 'window').`);
  const id = node.id;
  if (typeof id !== 'string') return reject("Window node has no 'id' string.");
  if (id === '') return reject("Window node has an empty 'id'.");
  if (!id.startsWith(EDITOR_PREFIX)) {
    return reject(
      `Window id '${id}' does not start with this editor's required prefix '${EDITOR_PREFIX}' (ids are '<editor name>__<bare id>').`,
    );
  }
  if (ctx.ids.has(id)) return reject(`Layout document contains duplicate window id '${id}'.`);
  ctx.ids.add(id);
  if (node.name !== undefined && (typeof node.name !== 'string' || node.name === '')) {
    return reject(`Window '${id}' has an invalid 'name' (a non-empty string; omit it instead of an empty one).`);
  }
  if (typeof node.view_direction !== 'string') return reject(`Window '${id}' has no 'view_direction' string.`);
  const links = node.links;
  if (!isObject(links)) return reject(`Window '${id}' has no 'links' object.`);
  if (typeof links.selection !== 'string') return reject(`Window '${id}' has no 'links.selection' string.`);
  if (ctx.v3) {
    for (const key of Object.keys(links)) {
      if (key === 'time') return reject(`Window '${id}': link dimension 'time' is reserved and not supported.`);
      if (!V3_LINKS.has(key)) return reject(`Window '${id}' has an unknown link dimension '${key}'.`);
    }
  }
  if (ctx.groups && !(links.selection in ctx.groups)) {
    return reject(`Layout references group '${links.selection}' which is not declared in the 'groups' dict.`);
  }
}

const fail = (message: string): never => {
  throw new LayoutError(message, true);
};

function weightOf(node: Json): number {
  if (node.size === undefined) return 1;
  if (typeof node.size !== 'number' || !Number.isFinite(node.size))
    return fail("Layout document JSON error: 'size' must be an integer.");
  const size = Math.trunc(node.size);
  if (size < 1) return fail(`Layout child has invalid 'size' ${size}; size must be >= 1.`);
  return size;
}

/** The build walk; the document already passed `validate`, so only build-time checks remain. */
function build(doc: Json): Layout {
  const referenced = new Set<string>();
  const buildNode = (node: Json, isRoot: boolean): LayoutNode => {
    const weight = isRoot ? 1 : weightOf(node);
    if (node.type === 'split') {
      const children = (node.children as Json[]).map((c) => buildNode(c, false));
      return { type: 'split', orientation: node.orientation as LayoutSplit['orientation'], weight, children };
    }
    const direction = node.view_direction as string;
    if (!VIEW_DIRECTIONS.includes(direction)) {
      return fail(`Unknown view_direction '${direction}' (expected 'axial', 'sagittal', 'coronal', or 'original').`);
    }
    const group = (node.links as Json).selection as string;
    referenced.add(group);
    const win: LayoutWindow = {
      type: 'window',
      id: node.id as string,
      viewDirection: direction as ViewDirection,
      group,
      weight,
    };
    if (typeof node.name === 'string') win.name = node.name;
    return win;
  };
  const root = buildNode(doc.root as Json, true) as LayoutSplit;
  const groups = new Map<string, { selectAll: boolean }>();
  if (isObject(doc.groups)) {
    for (const [name, entry] of Object.entries(doc.groups)) {
      groups.set(name, { selectAll: (entry as Json).select_all !== false });
    }
  } else {
    for (const name of referenced) groups.set(name, { selectAll: true });
  }
  const layout: Layout = { groups, root };
  if (typeof doc.name === 'string' && doc.name !== '') layout.name = doc.name;
  return layout;
}

/** The cells in document order (pre-order of the split tree). */
export function windowsOf(layout: Layout): LayoutWindow[] {
  const out: LayoutWindow[] = [];
  const visit = (n: LayoutNode): void => {
    if (n.type === 'window') out.push(n);
    else n.children.forEach(visit);
  };
  visit(layout.root);
  return out;
}
