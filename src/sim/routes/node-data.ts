import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SimNode } from '../datastore-types.js';
import type { SimRequest, SimResponse } from '../http-types.js';
import { writeImageBytes } from '../../volume/write-image.js';
import { Problem } from '../problem.js';
import type { Router } from '../router.js';
import type { Volume } from '../../volume/volume.js';
import { requireNode } from './input-checks.js';
import { nodeJson } from './node-query.js';
import { dataPropertiesOf, directUpload, fileReferenceUpload, transferKind, type Upload } from './node-upload.js';
import { envelope, isJsonObject, NODES, readJsonBody, type StorageContext } from './request-body.js';

/** A node's data: download (bytes or a file on the server) and replacement. */
export function registerNodeDataRoutes(router: Router, ctx: StorageContext): void {
  const { store } = ctx;
  router
    .on('GET', `${NODES}/:uid/data`, (req, { uid }) => {
      const node = requireNode(store, uid!);
      if (!node.volume) throw new Problem('NO_DATA', `Node '${node.uid}' has no data attached`);
      const bytes = serialize(node.volume);
      const fileName = `data_${node.uid}.nrrd`;
      if (downloadMode(req) === 'direct') {
        return {
          status: 200,
          headers: {
            'content-type': 'application/octet-stream',
            'content-disposition': `attachment; filename="${fileName}"`,
          },
          body: bytes,
        };
      }
      return fileReference(ctx, req, node, fileName, bytes);
    })
    .on('PUT', `${NODES}/:uid/data`, async (req, { uid }) => {
      const node = requireNode(store, uid!);
      const kind = transferKind(req);
      if (kind === 'none') {
        throw new Problem(
          'UNSUPPORTED_FORMAT',
          'Missing Content-Type; use application/json (file reference) or application/octet-stream (the file bytes)',
        );
      }
      let upload: Upload | undefined;
      if (kind === 'json') {
        const body = readJsonBody(req);
        if (!isJsonObject(body))
          throw new Problem(
            'INVALID_REQUEST',
            'Request body must be a JSON object {"transfer": {"mode"?: "file-reference", "file_path": "..."}}',
          );
        upload = (await fileReferenceUpload(ctx, body.transfer, true))!;
      } else {
        upload = await directUpload(req);
      }
      store.setVolume(node, upload.volume, dataPropertiesOf(upload));
      return upload.warning === undefined
        ? envelope(200, nodeJson(store, node))
        : envelope(200, nodeJson(store, node), { warning: upload.warning });
    });
}

/**
 * `X-MITK-Transfer-Mode` when it names a mode, else `Accept`, else direct. An unknown header
 * value is ignored, as the real server does (SPEC 1.2 suggests a 406; a client that sends
 * only the two defined values sees the same answer from either).
 */
function downloadMode(req: SimRequest): 'direct' | 'file-reference' {
  const header = req.headers['x-mitk-transfer-mode'];
  if (header === 'direct' || header === 'file-reference') return header;
  const accept = req.headers['accept'] ?? '';
  if (accept.includes('application/json')) return 'file-reference';
  return 'direct';
}

function serialize(volume: Volume): Uint8Array {
  try {
    return writeImageBytes(volume, 'nrrd');
  } catch (err) {
    throw new Problem(
      'SERIALIZATION_ERROR',
      `Failed to serialize the node's data: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Writes the file into a fresh temp directory of the client's IP and answers where it is (bare JSON). */
function fileReference(
  ctx: StorageContext,
  req: SimRequest,
  node: SimNode,
  fileName: string,
  bytes: Uint8Array,
): SimResponse {
  let filePath: string;
  let dir: string;
  try {
    dir = ctx.temps.create(req.clientIp);
    filePath = join(dir, fileName);
    writeFileSync(filePath, bytes);
  } catch (err) {
    throw new Problem(
      'SERIALIZATION_ERROR',
      `Failed to write the data file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  const v = node.volume!;
  const is2d = v.dims[2] === 1 && v.frames.length === 1;
  const dimensions = is2d ? [v.dims[0], v.dims[1]] : v.frames.length > 1 ? [...v.dims, v.frames.length] : [...v.dims];
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      data_metadata: {
        dimensions,
        origin: [...v.origin],
        pixel_type: PIXEL_TYPES[v.componentType] ?? v.componentType,
        spacing: [...v.spacing],
      },
      transfer: { directory_path: dir, file_path: filePath, mode: 'file-reference', size_bytes: bytes.length },
    }),
  };
}

/** ITK's names of the component types, which MITK reports as `pixel_type`. */
const PIXEL_TYPES: Record<string, string> = {
  int8: 'char',
  uint8: 'unsigned_char',
  int16: 'short',
  uint16: 'unsigned_short',
  int32: 'int',
  uint32: 'unsigned_int',
  int64: 'long',
  uint64: 'unsigned_long',
  float32: 'float',
  float64: 'double',
};
