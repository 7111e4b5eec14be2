import type { NodeInfo } from '../../api/wire.js';
import type { SimNode } from '../datastore-types.js';
import type { DataStore, PropertyScope } from '../datastore.js';
import type { SimRequest } from '../http-types.js';
import { filterText } from '../property-codec.js';
import { contextParam, READ_SCOPES, scopeParam } from './request-body.js';

/** The node object of every node answer: always these seven keys (unless `fields` trims them). */
export type NodeJson = NodeInfo;

const NODE_KEYS: ReadonlyArray<keyof NodeJson> = [
  'uid',
  'name',
  'path',
  'parent_uid',
  'data_type',
  'children_count',
  'timestamp',
];

/** Unqualified MITK class of the node's data: a segmentation only when its file said so. */
export function dataType(node: SimNode): string | null {
  if (!node.volume) return null;
  return node.volume.segmentation ? 'MultiLabelSegmentation' : 'Image';
}

/** Older MITK releases call a segmentation a LabelSetImage; a filter may use either name. */
const TYPE_ALIASES: Record<string, string> = { LabelSetImage: 'MultiLabelSegmentation' };

export function nodeJson(store: DataStore, node: SimNode): NodeJson {
  return {
    uid: node.uid,
    name: store.name(node),
    path: store.path(node),
    parent_uid: node.parentUid,
    data_type: dataType(node),
    children_count: store.children(node.uid).length,
    timestamp: node.timestamp,
  };
}

interface PropertyFilter {
  key: string;
  value: string;
  negated: boolean;
  pattern: RegExp;
}

/**
 * `filter.<key>=<value>`; negated by `!` at the end of the key (`filter.visible!=true`) or at
 * the start of the value; `*` matches any run of characters and `?` exactly one, anywhere.
 */
function propertyFilters(req: SimRequest): PropertyFilter[] {
  const out: PropertyFilter[] = [];
  for (const [rawKey, rawValue] of req.query) {
    if (!rawKey.startsWith('filter.')) continue;
    let key = rawKey.slice('filter.'.length);
    let value = rawValue;
    let negated = false;
    if (key.endsWith('!')) [key, negated] = [key.slice(0, -1), true];
    else if (value.startsWith('!')) [value, negated] = [value.slice(1), true];
    const body = [...value]
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    out.push({ key, value, negated, pattern: new RegExp(`^${body}$`, 's') });
  }
  return out;
}

function intParam(req: SimRequest, name: string): number | undefined {
  const v = req.query.get(name);
  return v !== null && /^-?\d+$/.test(v.trim()) ? Number(v) : undefined;
}

export interface Listing {
  data: Array<Partial<NodeJson>>;
  meta: Record<string, unknown>;
}

/**
 * A node listing with the real server's query parameters and meta block. `candidates` are
 * the nodes in scope (all nodes, or one node's children); `children` trims the meta as the
 * real server does for `/children`.
 */
export function listNodes(
  store: DataStore,
  req: SimRequest,
  candidates: readonly SimNode[],
  children: boolean,
): Listing {
  const limit = Math.min(1000, Math.max(1, intParam(req, 'limit') ?? 50));
  const offset = Math.max(0, intParam(req, 'offset') ?? 0);
  const scope = scopeParam<PropertyScope | 'all'>(req, READ_SCOPES, 'all');
  const context = contextParam(req);
  const filters: Record<string, unknown> = {};
  let nodes = [...candidates];

  const hierarchy = children ? null : req.query.get('hierarchy');
  if (hierarchy !== null) {
    filters.hierarchy = hierarchy;
    if (hierarchy === 'toplevel') nodes = nodes.filter((n) => n.parentUid === null);
  }
  const path = req.query.get('path');
  if (path !== null) {
    filters.path = path;
    nodes = nodes.filter((n) => store.path(n) === path);
  }
  const rawType = req.query.get('data_type');
  if (rawType !== null) {
    filters.data_type = rawType;
    const bare = rawType.replace(/^mitk::/, '');
    const wanted = TYPE_ALIASES[bare] ?? bare;
    nodes = nodes.filter((n) => dataType(n) === wanted);
  }
  const parent = children ? null : req.query.get('parent_uid');
  if (parent !== null) {
    filters.parent_uid = parent;
    nodes = nodes.filter((n) => n.parentUid === (parent === 'null' ? null : parent));
  }
  const props = propertyFilters(req);
  if (props.length > 0) {
    filters.property_filters = props.map(({ key, value, negated }) => ({ key, negated, value }));
    nodes = nodes.filter((n) =>
      props.every((f) => {
        const p = f.key === 'name' ? store.name(n) : store.view(n, scope, context).get(f.key);
        const text = p === undefined ? undefined : typeof p === 'string' ? p : filterText(p);
        const matches = text !== undefined && f.pattern.test(text);
        return f.negated ? !matches : matches;
      }),
    );
  }

  let rows = nodes.map((n) => nodeJson(store, n));
  const sortParam = req.query.get('sort');
  const sortField = sortParam?.replace(/^-/, '');
  const sorted = sortField !== undefined && (NODE_KEYS as readonly string[]).includes(sortField);
  if (sorted) {
    const key = sortField as keyof NodeJson;
    const dir = sortParam!.startsWith('-') ? -1 : 1;
    rows = rows.sort((a, b) => dir * compare(a[key], b[key]));
  }
  const total = rows.length;
  const fieldsParam = req.query.get('fields');
  const fields = fieldsParam
    ?.split(',')
    .map((f) => f.trim())
    .filter((f) => (NODE_KEYS as readonly string[]).includes(f));
  const page = rows
    .slice(offset, offset + limit)
    .map((row) => (fields ? Object.fromEntries(fields.map((f) => [f, row[f as keyof NodeJson]])) : row));

  const meta: Record<string, unknown> = { limit, offset, returned_count: page.length, total_count: total };
  const links = pageLinks(req, limit, offset, total);
  if (links) meta.links = links;
  if (path !== null) meta.path_query = path;
  if (children) return { data: page, meta };
  meta.context = context;
  meta.property_scope = scope;
  if (Object.keys(filters).length > 0) meta.filters = filters;
  if (sorted) meta.sort = { ascending: !sortParam!.startsWith('-'), field: sortField };
  if (fields) meta.fields = fields;
  return { data: page, meta };
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

/** prev/next as relative URLs keeping every query parameter, with `offset` appended last. */
function pageLinks(req: SimRequest, limit: number, offset: number, total: number): Record<string, string> | undefined {
  const at = (o: number): string => {
    const q = new URLSearchParams([...req.query].filter(([k]) => k !== 'offset'));
    q.append('offset', String(o));
    return `${req.path}?${q.toString()}`;
  };
  const links: Record<string, string> = {};
  if (offset > 0) links.prev = at(Math.max(0, offset - limit));
  if (offset + limit < total) links.next = at(offset + limit);
  return Object.keys(links).length > 0 ? links : undefined;
}
