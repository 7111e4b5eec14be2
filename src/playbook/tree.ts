/**
 * The parsed playbook as a small tree of plain values with source offsets. The compiler
 * reads values from it and asks it where a value or a key sits, so every message can point
 * at the exact characters.
 */
export type YNode = YMap | YSeq | YScalar;

export interface YRange {
  start: number;
  end: number;
}

export interface YEntry {
  key: string;
  keyRange: YRange;
  value: YNode;
}

export interface YMap extends YRange {
  type: 'map';
  entries: YEntry[];
}

export interface YSeq extends YRange {
  type: 'seq';
  items: YNode[];
}

export interface YScalar extends YRange {
  type: 'scalar';
  value: string | number | boolean | null;
  /** Offset of the scalar's text in the source (after a quote), to place `${...}` precisely. */
  textStart: number;
  /** Whether the source text is the value verbatim (plain or simply quoted, single line). */
  verbatim: boolean;
}

export type PathSegment = string | number;

export function entry(map: YMap, key: string): YEntry | undefined {
  return map.entries.find((e) => e.key === key);
}

/** The plain value (what YAML means), without positions. */
export function toPlain(node: YNode): unknown {
  switch (node.type) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(toPlain);
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) out[e.key] = toPlain(e.value);
      return out;
    }
  }
}

/**
 * The node at a path and the key that names it, as far as the path exists: the deepest node
 * reached is returned so a message about a missing child can point at its parent.
 */
export function locate(root: YNode, path: readonly PathSegment[]): { node: YNode; key?: YRange; complete: boolean } {
  let node = root;
  let key: YRange | undefined;
  for (const segment of path) {
    if (node.type === 'map') {
      const e = entry(node, String(segment));
      if (!e) return { node, ...(key ? { key } : {}), complete: false };
      node = e.value;
      key = e.keyRange;
    } else if (node.type === 'seq') {
      const item = typeof segment === 'number' ? node.items[segment] : node.items[Number(segment)];
      if (!item) return { node, ...(key ? { key } : {}), complete: false };
      node = item;
      key = undefined;
    } else {
      return { node, ...(key ? { key } : {}), complete: false };
    }
  }
  return { node, ...(key ? { key } : {}), complete: true };
}
