import type { PropertyValue, SimNode } from '../datastore-types.js';
import { isReserved, type PropertyScope } from '../datastore.js';
import type { SimRequest } from '../http-types.js';
import { Problem } from '../problem.js';
import { decodeProperty, encodeProperty, type Decoded } from '../property-codec.js';
import type { Router } from '../router.js';
import type { Json } from '../json-literals.js';
import {
  boolParam,
  contextParam,
  envelope,
  isJsonObject,
  NODES,
  READ_SCOPES,
  readJsonBody,
  readObjectBody,
  scopeParam,
  WRITE_SCOPES,
  type StorageContext,
} from './request-body.js';

/**
 * A node's properties at node scope (optionally per render window, the `context`) or data
 * scope. `restapi.*` keys are the server's own: hidden, never written, 404 on read.
 */
export function registerPropertyRoutes(router: Router, ctx: StorageContext): void {
  const { store } = ctx;
  const PROPS = `${NODES}/:uid/properties`;

  /** Decodes one value for `key`; a node's name must stay a string. */
  const decodeFor = (key: string, wire: Json): Decoded => {
    if (isReserved(key)) return { ok: false, error: `'${key}' is reserved for the server` };
    const decoded = decodeProperty(wire);
    if (decoded.ok && key === 'name' && decoded.value.type !== 'StringProperty')
      return { ok: false, error: 'name must be a string' };
    return decoded;
  };
  const writeTarget = (req: SimRequest, node: SimNode) => {
    const scope = scopeParam<PropertyScope>(req, WRITE_SCOPES, 'node');
    const context = scope === 'data' ? null : contextParam(req);
    return {
      scope,
      context,
      list: store.list(node, scope, context),
      meta: { context, node_uid: node.uid, property_scope: scope },
    };
  };

  router
    .on('GET', PROPS, (req, { uid }) => {
      const node = store.require(uid!);
      const scope = scopeParam(req, READ_SCOPES, 'all');
      const context = contextParam(req);
      let entries = [...store.view(node, scope, context)];
      const names = req.query.get('names');
      if (names !== null) {
        const wanted = new Set(names.split(',').map((n) => n.trim()));
        entries = entries.filter(([k]) => wanted.has(k));
      }
      // content=false lists the names only, as an array (SPEC and server; the OAS schema says object).
      const properties = boolParam(req, 'content', true)
        ? Object.fromEntries(entries.map(([k, v]) => [k, encodeProperty(v)]))
        : entries.map(([k]) => k);
      return envelope(
        200,
        { properties },
        { available_contexts: store.contexts(node), context, count: entries.length, property_scope: scope },
      );
    })
    .on('PUT', PROPS, (req, { uid }) => {
      const node = store.require(uid!);
      const body = readObjectBody(req);
      const target = writeTarget(req, node);
      const decoded = new Map<string, PropertyValue>();
      // Values that do not convert are skipped, as in the real server.
      for (const [key, wire] of Object.entries(body)) {
        const d = decodeFor(key, wire);
        if (d.ok) decoded.set(key, d.value);
      }
      const removed = [...target.list.keys()].filter(
        (k) =>
          !decoded.has(k) && !isReserved(k) && !(k === 'name' && target.scope === 'node' && target.context === null),
      );
      for (const k of removed) target.list.delete(k);
      for (const [k, v] of decoded) target.list.set(k, v);
      store.touch(node);
      return envelope(200, { removed, replaced: [...decoded.keys()] }, target.meta);
    })
    .on('PATCH', PROPS, (req, { uid }) => {
      const node = store.require(uid!);
      const body = readObjectBody(req);
      const target = writeTarget(req, node);
      const updated: string[] = [];
      const failed: Array<{ error: string; property: string }> = [];
      for (const [key, wire] of Object.entries(body)) {
        const d = decodeFor(key, wire);
        if (d.ok) {
          target.list.set(key, d.value);
          updated.push(key);
        } else failed.push({ error: d.error, property: key });
      }
      store.touch(node);
      return envelope(200, { failed, updated }, target.meta);
    })
    .on('GET', `${PROPS}/:key`, (req, { uid, key }) => {
      const node = store.require(uid!);
      const scope = scopeParam(req, READ_SCOPES, 'all');
      const context = contextParam(req);
      const value = store.view(node, scope, context).get(key!);
      if (value === undefined)
        throw new Problem('PROPERTY_NOT_FOUND', `Property '${key}' not found on node '${node.uid}'`);
      return envelope(
        200,
        { [key!]: encodeProperty(value) },
        { context, node_uid: node.uid, property_key: key, property_scope: scope },
      );
    })
    .on('PUT', `${PROPS}/:key`, (req, { uid, key }) => {
      const node = store.require(uid!);
      let wire = readJsonBody(req);
      if (wire === undefined) throw new Problem('INVALID_REQUEST', 'Request body is empty; send the property value');
      // SPEC wraps a value as {"value": v}; the server unwraps an object with `value` and no `type`.
      if (isJsonObject(wire) && 'value' in wire && !('type' in wire)) wire = wire.value!;
      const d = decodeFor(key!, wire);
      if (!d.ok) throw new Problem('INVALID_REQUEST', `Failed to set property value: ${d.error}`);
      const target = writeTarget(req, node);
      const replaced = target.list.has(key!);
      target.list.set(key!, d.value);
      store.touch(node);
      return envelope(200, { [key!]: encodeProperty(d.value) }, { node_uid: node.uid, property_key: key, replaced });
    })
    .on('DELETE', `${PROPS}/:key`, (req, { uid, key }) => {
      const node = store.require(uid!);
      const target = writeTarget(req, node);
      if (key === 'name' && target.scope === 'node' && target.context === null) {
        throw new Problem('PROPERTY_PROTECTED', "Property 'name' cannot be deleted");
      }
      // The stored server answered a missing key with a 500; a 404 says the same more usefully.
      if (isReserved(key!) || !target.list.has(key!))
        throw new Problem('PROPERTY_NOT_FOUND', `Property '${key}' not found on node '${node.uid}'`);
      target.list.delete(key!);
      store.touch(node);
      return envelope(200, { deleted: key }, { ...target.meta, property_key: key });
    });
}
