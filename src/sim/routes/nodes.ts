import type { SimNode } from '../datastore-types.js';
import type { SimRequest, SimResponse } from '../http-types.js';
import { Problem } from '../problem.js';
import type { PropertyValue } from '../datastore-types.js';
import { decodeProperty } from '../property-codec.js';
import { keyProblem, requireNode } from './input-checks.js';
import type { Router } from '../router.js';
import { listNodes, nodeJson } from './node-query.js';
import { dataPropertiesOf, directUpload, fileReferenceUpload, stem, transferKind, type Upload } from './node-upload.js';
import {
  boolParam,
  envelope,
  isJsonObject,
  NODES,
  readJsonBody,
  type JsonObject,
  type StorageContext,
} from './request-body.js';

/** Nodes of the data storage: list, create (with or without data), read, reparent, delete. */
export function registerNodeRoutes(router: Router, ctx: StorageContext): void {
  const { store } = ctx;
  router
    .on('GET', NODES, (req) => {
      const { data, meta } = listNodes(store, req, store.nodes(), false);
      return envelope(200, data, meta);
    })
    .on('POST', NODES, (req) => createNode(ctx, req, null))
    .on('GET', `${NODES}/:uid`, (_req, { uid }) => {
      const node = requireNode(store, uid!);
      return envelope(200, nodeJson(store, node), { available_contexts: store.contexts(node) });
    })
    .on('PATCH', `${NODES}/:uid`, (req, { uid }) => {
      const node = requireNode(store, uid!);
      const body = readJsonBody(req);
      if (!isJsonObject(body) || !('parent_uid' in body)) {
        throw new Problem(
          'INVALID_REQUEST',
          'Request body must be {"parent_uid": "<uid>"} or {"parent_uid": null}; only the parent can be changed here (rename with PUT .../properties/name)',
        );
      }
      const parent = body.parent_uid;
      if (parent !== null && (typeof parent !== 'string' || parent === ''))
        throw new Problem('INVALID_REQUEST', 'parent_uid must be a node UID or null');
      store.reparent(node, parent);
      return envelope(200, nodeJson(store, node));
    })
    .on('DELETE', `${NODES}/:uid`, (req, { uid }) => {
      const node = requireNode(store, uid!);
      const removed = store.remove(node, boolParam(req, 'recursive', false));
      return envelope(
        200,
        removed.length > 0 ? { deleted_children: removed, deleted_uid: node.uid } : { deleted_uid: node.uid },
      );
    })
    .on('GET', `${NODES}/:uid/children`, (req, { uid }) => {
      const parent = requireNode(store, uid!);
      const { data, meta } = listNodes(store, req, store.children(parent.uid), true);
      return envelope(200, data, { ...meta, parent_uid: parent.uid });
    })
    .on('POST', `${NODES}/:uid/children`, (req, { uid }) => createNode(ctx, req, requireNode(store, uid!)));
}

/**
 * POST of a node, top level or under `parent`. The data is read before the node is added, so
 * a failed load (422) leaves the scene exactly as it was.
 */
async function createNode(ctx: StorageContext, req: SimRequest, parent: SimNode | null): Promise<SimResponse> {
  const kind = transferKind(req);
  let name: string | undefined;
  let properties: JsonObject = {};
  let upload: Upload | undefined;
  if (kind === 'json') {
    const body = readJsonBody(req) ?? {};
    if (!isJsonObject(body))
      throw new Problem('INVALID_REQUEST', 'Request body must be a JSON object {"name"?, "properties"?, "transfer"?}');
    if (body.name !== undefined && typeof body.name !== 'string')
      throw new Problem('INVALID_REQUEST', '"name" must be a string');
    name = body.name;
    if (body.properties !== undefined) {
      if (!isJsonObject(body.properties))
        throw new Problem('INVALID_REQUEST', '"properties" must be an object of property values');
      properties = body.properties;
    }
    upload = await fileReferenceUpload(ctx, body.transfer, false);
  } else if (kind === 'direct') {
    name = req.query.get('name') ?? undefined;
    upload = await directUpload(req);
  }
  // The reader's name (DICOM: "Study / Series"), else the file's, as when a file is opened
  // in the workbench.
  const dataProperties = dataPropertiesOf(upload);
  const readerName = dataProperties.get('name')?.value;
  const fallback =
    typeof readerName === 'string' ? readerName : upload?.fileName === undefined ? undefined : stem(upload.fileName);
  const failed: string[] = [];
  const given: Array<[string, PropertyValue]> = [];
  for (const [key, wire] of Object.entries(properties)) {
    const decoded = decodeProperty(wire);
    if (
      !decoded.ok ||
      keyProblem(key, true) !== undefined ||
      (key === 'name' && decoded.value.type !== 'StringProperty')
    )
      failed.push(key);
    // The explicit `name` field wins over a `name` among the properties.
    else if (!(key === 'name' && name !== undefined)) given.push([key, decoded.value]);
  }
  // The properties go on before the data, as on the real server: the image mapper's defaults
  // then fill in only what they left open.
  const node = ctx.store.create({
    name: name ?? fallback,
    parentUid: parent?.uid ?? null,
    volume: upload?.volume ?? null,
    properties: given,
    dataProperties,
  });
  ctx.store.touch(node);
  const location = `${NODES}/${node.uid}`;
  const meta: Record<string, unknown> = { location };
  if (failed.length > 0) meta.failed_properties = failed;
  if (upload?.warning !== undefined) meta.warning = upload.warning;
  const answer = envelope(201, nodeJson(ctx.store, node), meta);
  answer.headers.location = location;
  return answer;
}
