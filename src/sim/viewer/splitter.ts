import type { Rect } from '../../image/rgba.js';
import type { Layout, LayoutNode } from './layout.js';

/**
 * The live geometry of an MxN layout: how Qt-like splitters share a canvas among their panes,
 * each cell's rectangle, and the layout document with those pixel sizes.
 */

/** Width of a splitter handle between two cells, in pixels. */
export const SPLITTER = 2;

type Json = Record<string, unknown>;

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
  const lengths = splitLengths(
    node.children.map((c) => c.weight),
    horizontal ? rect.width : rect.height,
  );
  let offset = horizontal ? rect.x : rect.y;
  node.children.forEach((child, i) => {
    const len = lengths[i]!;
    const r = horizontal
      ? { x: offset, y: rect.y, width: len, height: rect.height }
      : { x: rect.x, y: offset, width: rect.width, height: len };
    place(child, r, visit);
    offset += len + SPLITTER;
  });
}

/** Each cell's rectangle on a canvas of the given size (at least one pixel each way). */
export function cellRects(layout: Layout, width: number, height: number): Map<string, Rect> {
  const rects = new Map<string, Rect>();
  place(layout.root, { x: 0, y: 0, width, height }, (node, r) => {
    if (node.type === 'window')
      rects.set(node.id, { ...r, width: Math.max(1, r.width), height: Math.max(1, r.height) });
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
      splitLengths(
        node.children.map((c) => c.weight),
        horizontal ? r.width : r.height,
      ).forEach((len, i) => lengths.set(node.children[i]!, len));
    }
  });
  const write = (node: LayoutNode, isRoot: boolean): Json => {
    const size = isRoot ? {} : { size: lengths.get(node) ?? 1 };
    if (node.type === 'split') {
      return {
        children: node.children.map((c) => write(c, false)),
        orientation: node.orientation,
        ...size,
        type: 'split',
      };
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
  for (const name of [...layout.groups.keys()].sort())
    groups[name] = { select_all: layout.groups.get(name)!.selectAll };
  return {
    groups,
    ...(layout.name !== undefined ? { name: layout.name } : {}),
    root: write(layout.root, true),
    version: '2.0',
  };
}
