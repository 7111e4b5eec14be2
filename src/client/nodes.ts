import type { Discovery } from './discovery.js';
import {
  createNode,
  nodePath,
  transferFor,
  type CreatedNode,
  type CreateNodeOptions,
  type TransferMode,
} from './node-creation.js';
import { WorkbenchApiError, WorkbenchUsageError } from './errors.js';
import { MAX_DATA_BYTES, MAX_LIST_PAGES } from './limits.js';
import { bad, Fields, header, isRec, node, parseEnvelope, parseJson } from './parse.js';
import { patchResult, propPath, type PatchResult, type PropertyScope, type PropertyValue } from './properties.js';
import type { CallOptions, QueryValue, Transport } from './transport.js';
import type { NodeInfo } from '../api/wire.js';
import { displayPatch, type DisplayProperties } from './display-patch.js';

export { displayPatch, type DisplayProperties } from './display-patch.js';

/** A property filter value: matched against the property's JSON form; `*` and `?` are wildcards. `{not: v}` negates. */
export type FilterValue = string | number | boolean | { not: string | number | boolean };

export interface NodeFilter {
  hierarchy?: 'all' | 'toplevel';
  /** Exact node path such as `/CT/Label`. */
  path?: string;
  data_type?: string;
  /** Children of that node; null = top-level nodes. */
  parent_uid?: string | null;
  properties?: Record<string, FilterValue>;
  /** Where `properties` are looked up. */
  property_scope?: PropertyScope;
  context?: string;
  /** A node field, `-` in front for descending (`-timestamp`). */
  sort?: string;
}

export type NodeData =
  | { mode: 'direct'; bytes: Uint8Array; contentType: string; filename: string | null }
  | {
      mode: 'file-reference';
      file_path: string;
      directory_path: string | null;
      size_bytes: number | null;
      data_metadata: Record<string, unknown>;
    };

/** Page size of listings: the server's maximum. */
const PAGE = 1000;

export class Nodes {
  constructor(
    private readonly t: Transport,
    private readonly discovery: Discovery,
  ) {}

  /** Every node matching `filter`, across all pages. */
  async list(filter: NodeFilter = {}, call?: CallOptions): Promise<NodeInfo[]> {
    return this.#pages('/datastorage/nodes', filterQuery(filter), call);
  }

  /** Direct children of `uid`, across all pages. */
  async children(
    uid: string,
    filter: Omit<NodeFilter, 'hierarchy' | 'parent_uid'> = {},
    call?: CallOptions,
  ): Promise<NodeInfo[]> {
    return this.#pages(`${nodePath(uid)}/children`, filterQuery(filter), call);
  }

  async get(uid: string, call?: CallOptions): Promise<NodeInfo> {
    const reply = await this.t.send({ method: 'GET', path: nodePath(uid), call });
    return node(Fields.of(reply, parseEnvelope(reply).data, 'data'));
  }

  /** Whether a node with this UID exists. */
  async has(uid: string, call?: CallOptions): Promise<boolean> {
    try {
      await this.get(uid, call);
      return true;
    } catch (err) {
      if (err instanceof WorkbenchApiError && err.code === 'NODE_NOT_FOUND') return false;
      throw err;
    }
  }

  /**
   * Creates a node: empty, from a file (streamed, or referenced by path), or from bytes;
   * see `createNode` for the transfer mode.
   */
  create(opts: CreateNodeOptions = {}): Promise<CreatedNode> {
    return createNode(this.t, this.discovery, opts);
  }

  /**
   * How `create` would send this file: by reference when the workbench can read it (on this
   * machine, inside its allowed directories), else as bytes. A caller that must not send the
   * file as it is (one file of a DICOM series) asks first and sends something else instead.
   */
  transferFor(file: string, opts: CallOptions & { transfer?: TransferMode } = {}): Promise<TransferMode> {
    return transferFor(this.t, this.discovery, file, opts);
  }

  /** Moves a node under another parent, or to the top level with null. */
  async reparent(uid: string, parent: string | null, call?: CallOptions): Promise<NodeInfo> {
    const reply = await this.t.send({ method: 'PATCH', path: nodePath(uid), json: { parent_uid: parent }, call });
    return node(Fields.of(reply, parseEnvelope(reply).data, 'data'));
  }

  /** Removes a node; with children it needs `recursive` (else the server answers NODE_HAS_CHILDREN). */
  async remove(
    uid: string,
    opts: CallOptions & { recursive?: boolean } = {},
  ): Promise<{ deleted_uid: string; deleted_children: string[] }> {
    const reply = await this.t.send({
      method: 'DELETE',
      path: nodePath(uid),
      query: [['recursive', opts.recursive ? 'true' : undefined]],
      call: opts,
    });
    if (reply.body.length === 0) return { deleted_uid: uid, deleted_children: [] };
    const data = Fields.of(reply, parseEnvelope(reply).data, 'data');
    return { deleted_uid: data.str('deleted_uid', uid), deleted_children: data.strings('deleted_children', []) };
  }

  /**
   * Sets display properties; omitted ones keep their value. Values are checked before
   * anything is sent; the name and the rest go in one PATCH (the name alone through its own
   * property route), the parent through a reparent.
   */
  async setDisplay(uid: string, props: DisplayProperties, call?: CallOptions): Promise<PatchResult> {
    const patch = displayPatch(props);
    if (props.parent !== undefined && props.parent !== null && typeof props.parent !== 'string')
      throw invalid('parent must be a node UID or null');
    if (Object.keys(patch).length === 0 && props.parent === undefined) {
      throw new WorkbenchUsageError('EMPTY_PATCH', `no display property given for node ${uid}`);
    }
    const result: PatchResult = { updated: [], failed: [] };
    if (Object.keys(patch).length === 1 && patch.name !== undefined) {
      await this.t.send({ method: 'PUT', path: propPath(uid, 'name'), json: patch.name, call });
      result.updated.push('name');
    } else if (Object.keys(patch).length > 0) {
      const r = await this.#patch(uid, patch, call);
      result.updated.push(...r.updated);
      result.failed.push(...r.failed);
    }
    if (props.parent !== undefined) {
      await this.reparent(uid, props.parent, call);
      result.updated.push('parent');
    }
    return result;
  }

  /**
   * The nodes that carry the property `key` at node scope, e.g. a marker a tool put on the nodes
   * it made. Asked with one property filter; a server that did not apply the filter (its answer
   * does not echo it) would answer with every node, so each is then asked for the property.
   */
  async carrying(key: string, call?: CallOptions): Promise<NodeInfo[]> {
    let applied = false;
    const listed = await this.#pages(
      '/datastorage/nodes',
      filterQuery({ properties: { [key]: '*' }, property_scope: 'node' }),
      call,
      (meta) => (applied = echoesFilter(meta, key)),
    );
    if (applied) return listed;
    const carrying: NodeInfo[] = [];
    for (const n of listed) {
      const names = await this.t
        .send({
          method: 'GET',
          path: propPath(n.uid),
          query: [
            ['property_scope', 'node'],
            ['content', 'false'],
          ],
          call,
        })
        .then((reply) => Fields.of(reply, parseEnvelope(reply).data, 'data').rec.properties);
      const has = Array.isArray(names) ? names.includes(key) : isRec(names) && key in names;
      if (has) carrying.push(n);
    }
    return carrying;
  }

  /** Hides every node (there is no endpoint for it: one PATCH per node). Returns the UIDs hidden. */
  async hideAll(call?: CallOptions): Promise<string[]> {
    const all = await this.list({}, call);
    for (const n of all) await this.#patch(n.uid, { visible: false }, call);
    return all.map((n) => n.uid);
  }

  /** The node's data: bytes (direct) or where the server wrote it (file-reference). */
  async getData(uid: string, opts: CallOptions & { transfer?: TransferMode } = {}): Promise<NodeData> {
    const mode = opts.transfer ?? 'direct';
    const reply = await this.t.send({
      method: 'GET',
      path: `${nodePath(uid)}/data`,
      headers: {
        'x-mitk-transfer-mode': mode,
        accept: mode === 'direct' ? 'application/octet-stream' : 'application/json',
      },
      call: opts,
      answer: { maxBytes: MAX_DATA_BYTES, what: "a node's data (use transfer 'file-reference' for larger data)" },
    });
    const type = header(reply, 'content-type');
    // Data comes as bytes or as a JSON file reference; a text or HTML page is neither (a proxy's error page, say).
    if (/^\s*(text|multipart)\//i.test(type)) {
      throw bad(
        reply,
        `the answer has content-type ${type.slice(0, 80)} where the node's data (application/octet-stream) or a file reference (application/json) was expected`,
      );
    }
    if (!type.includes('application/json')) {
      const cd = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header(reply, 'content-disposition'));
      return {
        mode: 'direct',
        bytes: new Uint8Array(reply.body),
        contentType: type || 'application/octet-stream',
        filename: cd?.[1] ?? null,
      };
    }
    const body = Fields.of(reply, parseJson(reply));
    const tr = body.sub('transfer');
    return {
      mode: 'file-reference',
      file_path: tr.str('file_path'),
      directory_path: tr.optStr('directory_path'),
      size_bytes: tr.optNum('size_bytes'),
      data_metadata: body.record('data_metadata', {}),
    };
  }

  async #patch(
    uid: string,
    values: Record<string, PropertyValue>,
    call: CallOptions | undefined,
  ): Promise<PatchResult> {
    return this.t
      .send({ method: 'PATCH', path: propPath(uid), json: values, call })
      .then((r) => patchResult(r, Object.keys(values)));
  }

  async #pages(
    path: string,
    query: Array<[string, QueryValue]>,
    call: CallOptions | undefined,
    onMeta?: (meta: Record<string, unknown>) => void,
  ): Promise<NodeInfo[]> {
    const out: NodeInfo[] = [];
    for (let offset = 0, page = 0; ; page++) {
      const reply = await this.t.send({
        method: 'GET',
        path,
        query: [...query, ['limit', PAGE], ['offset', offset]],
        call,
      });
      const { data, meta } = parseEnvelope(reply);
      if (page === 0) onMeta?.(meta);
      if (!Array.isArray(data)) throw Fields.of(reply, {}, 'data').fail('a node listing should be an array');
      for (const item of data) out.push(node(Fields.of(reply, item, 'data[]')));
      offset += data.length;
      const total = typeof meta.total_count === 'number' ? meta.total_count : offset;
      if (data.length === 0 || offset >= total) return out;
      if (page + 1 >= MAX_LIST_PAGES)
        throw bad(
          reply,
          `the listing did not end after ${MAX_LIST_PAGES} pages (${offset} nodes; total_count says ${total})`,
        );
    }
  }
}

function filterQuery(f: NodeFilter): Array<[string, QueryValue]> {
  const q: Array<[string, QueryValue]> = [
    ['hierarchy', f.hierarchy],
    ['path', f.path],
    ['data_type', f.data_type],
    ['parent_uid', f.parent_uid],
    ['sort', f.sort],
  ];
  const props = Object.entries(f.properties ?? {});
  for (const [key, v] of props) {
    if (typeof v === 'object' && v !== null) q.push([`filter.${key}!`, filterText(v.not)]);
    else q.push([`filter.${key}`, filterText(v)]);
  }
  // Scope and context only matter for property filters, and only then are they sent.
  if (props.length > 0 || f.property_scope !== undefined || f.context !== undefined)
    q.push(['property_scope', f.property_scope], ['context', f.context]);
  return q;
}

/** Filters compare against the property's JSON text: booleans as true/false, numbers in plain form. */
function filterText(v: string | number | boolean): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Whether a listing's meta says the server applied the property filter on `key`. */
function echoesFilter(meta: Record<string, unknown>, key: string): boolean {
  const filters = meta.filters;
  if (!isRec(filters) || !Array.isArray(filters.property_filters)) return false;
  return filters.property_filters.some((f) => isRec(f) && f.key === key);
}

function invalid(message: string): WorkbenchUsageError {
  return new WorkbenchUsageError('INVALID_ARGUMENT', message);
}
