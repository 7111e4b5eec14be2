import { WorkbenchUsageError } from './errors.js';
import { Fields, isRec, parseEnvelope } from './parse.js';
import type { CallOptions, QueryValue, Reply, Transport } from './transport.js';

/** `all` = node then data (reads only), `node` = the node's list, `data` = the data object's list. */
export type PropertyScope = 'all' | 'node' | 'data';

/**
 * A property value as on the wire: a JSON scalar for simple types (wrap a number in
 * `float()` to make it a FloatProperty), `{type, value}` for the others
 * (`{type: 'ColorProperty', value: [1.0, 0.0, 0.0]}`). Values read back keep that form.
 */
export type PropertyValue = unknown;

export interface PropertyOptions extends CallOptions {
  scope?: PropertyScope;
  /** Renderer context (a window's renderer name or an MxN cell id); meaningful at node scope. */
  context?: string;
}

export interface PatchResult {
  updated: string[];
  failed: Array<{ property: string; error: string }>;
}

/** Generic property access of one node: GET/PUT/PATCH/DELETE under `/datastorage/nodes/{uid}/properties`. */
export class Properties {
  constructor(private readonly t: Transport) {}

  async get(uid: string, key: string, opts: PropertyOptions = {}): Promise<PropertyValue> {
    const reply = await this.t.send({
      method: 'GET',
      path: propPath(uid, key),
      query: scopeQuery(opts, false),
      call: opts,
    });
    const data = Fields.of(reply, parseEnvelope(reply).data, 'data');
    if (!(key in data.rec)) throw data.fail(`the answer does not carry property '${key}'`);
    return data.rec[key];
  }

  /** All properties of one scope, optionally only `names`. */
  async list(uid: string, opts: PropertyOptions & { names?: string[] } = {}): Promise<Record<string, PropertyValue>> {
    const query = [...scopeQuery(opts, false), ['names', opts.names?.join(',')] as [string, QueryValue]];
    const reply = await this.t.send({ method: 'GET', path: propPath(uid), query, call: opts });
    return Fields.of(reply, parseEnvelope(reply).data, 'data').record('properties');
  }

  /** Property names only (`content=false`); the server sends an array, an object's keys are accepted too. */
  async names(uid: string, opts: PropertyOptions = {}): Promise<string[]> {
    const reply = await this.t.send({
      method: 'GET',
      path: propPath(uid),
      query: [...scopeQuery(opts, false), ['content', 'false']],
      call: opts,
    });
    const props = Fields.of(reply, parseEnvelope(reply).data, 'data').rec.properties;
    if (Array.isArray(props)) return props.filter((p): p is string => typeof p === 'string');
    if (isRec(props)) return Object.keys(props);
    throw Fields.of(reply, {}, 'data').fail('properties is neither a list of names nor an object');
  }

  /** Creates or replaces one property; `replaced` says whether it existed. */
  async set(
    uid: string,
    key: string,
    value: PropertyValue,
    opts: PropertyOptions = {},
  ): Promise<{ replaced: boolean }> {
    const reply = await this.t.send({
      method: 'PUT',
      path: propPath(uid, key),
      query: scopeQuery(opts, true),
      json: wireValue(value),
      call: opts,
    });
    const meta = reply.status === 204 ? {} : parseEnvelope(reply).meta;
    return { replaced: meta.replaced === true };
  }

  /** Merges `values` into the scope. Partial failure is still a 2xx: see `failed`. */
  async patch(uid: string, values: Record<string, PropertyValue>, opts: PropertyOptions = {}): Promise<PatchResult> {
    if (Object.keys(values).length === 0)
      throw new WorkbenchUsageError('EMPTY_PATCH', `no property given to change on node ${uid}`);
    const reply = await this.t.send({
      method: 'PATCH',
      path: propPath(uid),
      query: scopeQuery(opts, true),
      json: values,
      call: opts,
    });
    return patchResult(reply, Object.keys(values));
  }

  /** Replaces the whole scope: keys not in `values` are removed (except `name`). */
  async replace(
    uid: string,
    values: Record<string, PropertyValue>,
    opts: PropertyOptions = {},
  ): Promise<{ replaced: string[]; removed: string[] }> {
    const reply = await this.t.send({
      method: 'PUT',
      path: propPath(uid),
      query: scopeQuery(opts, true),
      json: values,
      call: opts,
    });
    const data = Fields.of(reply, parseEnvelope(reply).data, 'data');
    return { replaced: data.strings('replaced', []), removed: data.strings('removed', []) };
  }

  async delete(uid: string, key: string, opts: PropertyOptions = {}): Promise<void> {
    await this.t.send({ method: 'DELETE', path: propPath(uid, key), query: scopeQuery(opts, true), call: opts });
  }
}

/**
 * Some servers (and the MITK client's mocks) answer a properties PATCH with 204 and no
 * body; then every key counts as updated, since the server reported no failure.
 */
export function patchResult(reply: Reply, keys: string[]): PatchResult {
  if (reply.status === 204 || reply.body.length === 0) return { updated: keys, failed: [] };
  const data = Fields.of(reply, parseEnvelope(reply).data, 'data');
  const failedRaw = Array.isArray(data.rec.failed) ? data.rec.failed : [];
  const failed = failedRaw
    .filter(isRec)
    .map((f) => ({ property: String(f.property ?? ''), error: String(f.error ?? '') }));
  return { updated: data.strings('updated', []), failed };
}

export function propPath(uid: string, key?: string): string {
  const base = `/datastorage/nodes/${encodeURIComponent(uid)}/properties`;
  return key === undefined ? base : `${base}/${encodeURIComponent(key)}`;
}

export function scopeQuery(opts: PropertyOptions, write: boolean): Array<[string, QueryValue]> {
  if (write && opts.scope === 'all') {
    throw new WorkbenchUsageError('INVALID_ARGUMENT', "property scope 'all' is for reading; write to 'node' or 'data'");
  }
  if (opts.scope !== undefined && !['all', 'node', 'data'].includes(opts.scope)) {
    throw new WorkbenchUsageError(
      'INVALID_ARGUMENT',
      `property scope '${String(opts.scope)}' is not one of all, node, data`,
    );
  }
  return [
    ['property_scope', opts.scope],
    ['context', opts.context],
  ];
}

/** A single-property PUT body is the value itself; only an object with `value` and no `type` would be unwrapped by the server, so it is sent as is. */
function wireValue(value: PropertyValue): PropertyValue {
  if (value === undefined) throw new WorkbenchUsageError('INVALID_ARGUMENT', 'a property value is required');
  return value;
}
