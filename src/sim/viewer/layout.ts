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

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
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
/** Width of a splitter handle between two cells, in pixels. */
export const SPLITTER = 2;

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
    if (!Array.isArray(node.children) || node.children.length === 0) return reject("Split node has no non-empty 'children' array.");
    for (const child of node.children) walk(child, ctx);
    return;
  }
  if (node.type !== 'window') return reject(`Unknown layout node type '${node.type}' (expected 'split' or 'window').`);
  const id = node.id;
  if (typeof id !== 'string') return reject("Window node has no 'id' string.");
  if (id === '') return reject("Window node has an empty 'id'.");
  if (!id.startsWith(EDITOR_PREFIX)) {
    return reject(`Window id '${id}' does not start with this editor's required prefix '${EDITOR_PREFIX}' (ids are '<editor name>__<bare id>').`);
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
  if (typeof node.size !== 'number' || !Number.isFinite(node.size)) return fail("Layout document JSON error: 'size' must be an integer.");
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
    const win: LayoutWindow = { type: 'window', id: node.id as string, viewDirection: direction as ViewDirection, group, weight };
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

/**
 * Pixel lengths of a splitter's children: the length minus the handles, shared in proportion
 * to the weights; rounding leftovers go to the largest remainders so the sum is exact.
 */
export function splitLengths(weights: readonly number[], length: number): number[] {
  const available = Math.max(0, length - SPLITTER * (weights.length - 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (available * w) / total);
  const sizes = exact.map(Math.floor);
  let left = available - sizes.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left-- <= 0) break;
    sizes[i]! += 1;
  }
  return sizes;
}

/** Lays the tree out on a canvas: each node with its rectangle, in pre-order. */
function place(node: LayoutNode, rect: Rect, visit: (node: LayoutNode, rect: Rect) => void): void {
  visit(node, rect);
  if (node.type === 'window') return;
  const horizontal = node.orientation === 'horizontal';
  const lengths = splitLengths(node.children.map((c) => c.weight), horizontal ? rect.width : rect.height);
  let offset = horizontal ? rect.x : rect.y;
  node.children.forEach((child, i) => {
    const len = lengths[i]!;
    const r = horizontal ? { x: offset, y: rect.y, width: len, height: rect.height } : { x: rect.x, y: offset, width: rect.width, height: len };
    place(child, r, visit);
    offset += len + SPLITTER;
  });
}

/** Each cell's rectangle on a canvas of the given size (at least one pixel each way). */
export function cellRects(layout: Layout, width: number, height: number): Map<string, Rect> {
  const rects = new Map<string, Rect>();
  place(layout.root, { x: 0, y: 0, width, height }, (node, r) => {
    if (node.type === 'window') rects.set(node.id, { ...r, width: Math.max(1, r.width), height: Math.max(1, r.height) });
  });
  return rects;
}

/**
 * The document a GET answers: schema 2.0, strict groups, and each child's `size` the live
 * pixel length of its splitter pane (not the weight that was sent). Keys come alphabetically,
 * as the real server's JSON library writes them.
 */
export function serializeLayout(layout: Layout, width: number, height: number): Json {
  const lengths = new Map<LayoutNode, number>();
  place(layout.root, { x: 0, y: 0, width, height }, (node, r) => {
    if (node.type === 'split') {
      const horizontal = node.orientation === 'horizontal';
      node.children.forEach((c) => lengths.set(c, 0));
      splitLengths(node.children.map((c) => c.weight), horizontal ? r.width : r.height).forEach((len, i) => lengths.set(node.children[i]!, len));
    }
  });
  const write = (node: LayoutNode, isRoot: boolean): Json => {
    const size = isRoot ? {} : { size: lengths.get(node) ?? 1 };
    if (node.type === 'split') {
      return { children: node.children.map((c) => write(c, false)), orientation: node.orientation, ...size, type: 'split' };
    }
    return {
      id: node.id,
      links: { selection: node.group },
      ...(node.name !== undefined ? { name: node.name } : {}),
      ...size,
      type: 'window',
      view_direction: node.viewDirection,
    };
  };
  const groups: Json = {};
  for (const name of [...layout.groups.keys()].sort()) groups[name] = { select_all: layout.groups.get(name)!.selectAll };
  return {
    groups,
    ...(layout.name !== undefined ? { name: layout.name } : {}),
    root: write(layout.root, true),
    version: '2.0',
  };
}
