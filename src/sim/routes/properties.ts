import type { PropertyValue, SimNode } from '../datastore-types.js';
import { assign, isReserved } from '../datastore.js';
import type { SimRequest } from '../http-types.js';
import { Problem } from '../problem.js';
import { decodeProperty, encodeProperty, type Decoded } from '../property-codec.js';
import type { Router } from '../router.js';
import type { Json } from '../../volume/json-literals.js';
import { checkKey, checkUid, keyProblem, requireNode, writeScope } from './input-checks.js';
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
  type StorageContext,
} from './request-body.js';

/**
 * A node's properties at node scope (optionally per render window, the `context`) or data
 * scope. `restapi.*` keys are the server's own: hidden, never written, 404 on read. A UID or a
 * key in the path is checked before the node is looked up; a value of another class than the
 * stored one is ignored while the call succeeds, as on the real server (see `assign`).
 */
export function registerPropertyRoutes(router: Router, ctx: StorageContext): void {
  const { store } = ctx;
  const PROPS = `${NODES}/:uid/properties`;

  /** Decodes one value for `key`; a node's name must stay a string. */
  const decodeFor = (key: string, wire: Json): Decoded => {
    const problem = keyProblem(key, true);
    if (problem !== undefined) return { ok: false, error: problem };
    const decoded = decodeProperty(wire);
    if (decoded.ok && key === 'name' && decoded.value.type !== 'StringProperty')
      return { ok: false, error: 'name must be a string' };
    return decoded;
  };
  const writeTarget = (req: SimRequest, node: SimNode) => {
    const scope = writeScope(req);
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
      const node = requireNode(store, uid!);
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
      const node = requireNode(store, uid!);
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
      for (const [k, v] of decoded) assign(target.list, k, v);
      store.touch(node);
      return envelope(200, { removed, replaced: [...decoded.keys()] }, target.meta);
    })
    .on('PATCH', PROPS, (req, { uid }) => {
      const node = requireNode(store, uid!);
      const body = readObjectBody(req);
      // The real server sets the keys one by one and each is refused at scope `all`: a 200 that lists them all as failed.
      if (req.query.get('property_scope') === 'all') {
        const error = "property_scope 'all' is for reading; write at property_scope 'node' or 'data'";
        const failed = Object.keys(body).map((property) => ({ error, property }));
        return envelope(
          200,
          { failed, updated: [] },
          { context: contextParam(req), node_uid: node.uid, property_scope: 'all' },
        );
      }
      const target = writeTarget(req, node);
      const updated: string[] = [];
      const failed: Array<{ error: string; property: string }> = [];
      for (const [key, wire] of Object.entries(body)) {
        const d = decodeFor(key, wire);
        if (d.ok) {
          // Listed as updated even when a class mismatch kept the old value: so does the real server.
          assign(target.list, key, d.value);
          updated.push(key);
        } else failed.push({ error: d.error, property: key });
      }
      store.touch(node);
      return envelope(200, { failed, updated }, target.meta);
    })
    .on('GET', `${PROPS}/:key`, (req, { uid, key }) => {
      checkUid(uid!);
      checkKey(key!, false);
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
      checkUid(uid!);
      checkKey(key!, true);
      const node = store.require(uid!);
      let wire = readJsonBody(req);
      if (wire === undefined) throw new Problem('INVALID_REQUEST', 'Request body is empty; send the property value');
      // SPEC wraps a value as {"value": v}; the server unwraps an object with `value` and no `type`.
      if (isJsonObject(wire) && 'value' in wire && !('type' in wire)) wire = wire.value!;
      const d = decodeFor(key!, wire);
      if (!d.ok) throw new Problem('INVALID_REQUEST', `Failed to set property value: ${d.error}`);
      const target = writeTarget(req, node);
      const replaced = target.list.has(key!);
      assign(target.list, key!, d.value);
      store.touch(node);
      // The answer reads the property back: after a class mismatch it shows the value kept.
      return envelope(
        200,
        { [key!]: encodeProperty(target.list.get(key!)!) },
        { node_uid: node.uid, property_key: key, replaced },
      );
    })
    .on('DELETE', `${PROPS}/:key`, (req, { uid, key }) => {
      checkUid(uid!);
      checkKey(key!, true);
      const node = store.require(uid!);
      // `name` is protected outside the data scope, `all` included, before the scope is refused.
      if (key === 'name' && req.query.get('property_scope') !== 'data' && contextParam(req) === null) {
        throw new Problem('PROPERTY_PROTECTED', "Property 'name' cannot be deleted");
      }
      const target = writeTarget(req, node);
      // The stored server answered a missing key with a 500; a 404 says the same more usefully.
      if (isReserved(key!) || !target.list.has(key!))
        throw new Problem('PROPERTY_NOT_FOUND', `Property '${key}' not found on node '${node.uid}'`);
      target.list.delete(key!);
      store.touch(node);
      return envelope(200, { deleted: key }, { ...target.meta, property_key: key });
    });
}
