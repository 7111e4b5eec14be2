import type { Discovery } from './discovery.js';
import { WorkbenchApiError, WorkbenchUsageError } from './errors.js';
import { isOwnMachine } from './hosts.js';
import { Fields, isRec, node, parseEnvelope } from './parse.js';
import { patchResult, propPath, type PropertyValue } from './properties.js';
import type { CallOptions, Reply, Transport } from './transport.js';
import type { NodeInfo } from '../api/wire.js';
import { directUploadHeaders, insideAllowed, openForUpload, referencePath, splitFileName } from './upload.js';

export type TransferMode = 'direct' | 'file-reference';

export interface CreateNodeOptions extends CallOptions {
  /** A data file to load; streamed (direct) or referenced by path (file-reference). */
  file?: string;
  /** In-memory data to upload (direct); give `format` or a `filename` with an extension. */
  bytes?: Uint8Array;
  filename?: string;
  /** Data format without dot (`nrrd`, `nii.gz`); default from the file name. */
  format?: string;
  /** Node name; default: the file name without its format suffix. */
  name?: string;
  /**
   * When the data travels as bytes, `name` and `properties` can only follow in a second
   * request: until then the node is called this, so a caller whose answer was lost can find it.
   */
  provisionalName?: string;
  /** Create as a child of this node. */
  parent?: string;
  /** Default: file-reference when the server offers it and runs on this machine, else direct. */
  transfer?: TransferMode;
  /** Properties to set on the new node. */
  properties?: Record<string, PropertyValue>;
}

export interface CreatedNode {
  node: NodeInfo;
  transfer: TransferMode | null;
  /** e.g. a file held several data objects and only the first was kept. */
  warning: string | null;
  failed_properties: string[];
}

/** Creates a node under `/datastorage/nodes` (or a parent's `/children`). */
export async function createNode(t: Transport, discovery: Discovery, opts: CreateNodeOptions): Promise<CreatedNode> {
  if (opts.file !== undefined && opts.bytes !== undefined)
    throw new WorkbenchUsageError('INVALID_ARGUMENT', 'give either file or bytes, not both');
  const path = opts.parent === undefined ? '/datastorage/nodes' : `${nodePath(opts.parent)}/children`;
  if (opts.file === undefined && opts.bytes === undefined) {
    const reply = await t.send({
      method: 'POST',
      path,
      json: { name: opts.name, properties: opts.properties },
      call: opts,
    });
    return created(reply, null);
  }
  if (opts.file !== undefined && (await transferFor(t, discovery, opts.file, opts)) === 'file-reference') {
    const file_path = await referencePath(opts.file);
    const name = opts.name ?? splitFileName(opts.file).stem;
    const reply = await t.send({
      method: 'POST',
      path,
      json: { name, properties: opts.properties, transfer: { mode: 'file-reference', file_path } },
      call: opts,
    });
    return created(reply, 'file-reference');
  }
  const provisional = opts.provisionalName !== undefined && opts.properties !== undefined;
  const result = await createDirect(t, path, provisional ? { ...opts, name: opts.provisionalName } : opts);
  // A raw-bytes body has no room for properties; they follow in a second request (the name too,
  // when the node was made under a provisional one).
  const later = {
    ...(provisional ? { name: opts.name ?? splitFileName(opts.file ?? '').stem } : {}),
    ...opts.properties,
  };
  if (Object.keys(later).length > 0) {
    const reply = await t.send({ method: 'PATCH', path: propPath(result.node.uid), json: later, call: opts });
    result.failed_properties.push(...patchResult(reply, Object.keys(later)).failed.map((f) => f.property));
    if (provisional && !result.failed_properties.includes('name'))
      result.node = { ...result.node, name: String(later.name) };
  }
  return result;
}

async function createDirect(t: Transport, path: string, opts: CreateNodeOptions): Promise<CreatedNode> {
  const fileName = splitFileName(opts.file ?? opts.filename ?? '');
  const format = opts.format ?? fileName.format;
  if (format === null) {
    throw new WorkbenchUsageError(
      'INVALID_ARGUMENT',
      `cannot tell the data format of ${opts.file ?? 'the bytes'}: give format (e.g. 'nrrd', 'nii.gz') or a file name with an extension`,
    );
  }
  const name = opts.name ?? (opts.file !== undefined ? fileName.stem : undefined);
  const stem = fileName.stem || name || 'data';
  if (opts.bytes !== undefined) {
    const reply = await t.send({
      method: 'POST',
      path,
      query: [['name', name]],
      body: opts.bytes,
      headers: directUploadHeaders(stem, format, opts.bytes.byteLength),
      call: opts,
    });
    return created(reply, 'direct');
  }
  const file = await openForUpload(opts.file ?? '');
  const reply = await t.send({
    method: 'POST',
    path,
    query: [['name', name]],
    body: file.stream,
    headers: directUploadHeaders(stem, format, file.size),
    progress: file.progress,
    call: opts,
  });
  return created(reply, 'direct');
}

/**
 * Transfer mode as the interface resolves it: the caller's choice; else file-reference when
 * the server offers it and runs on this machine; else direct. A chosen file-reference is
 * refused before sending when the server restricts paths and the file lies outside them;
 * an automatic choice falls back to direct in that case instead.
 */
export async function transferFor(
  t: Transport,
  discovery: Discovery,
  file: string,
  call: CallOptions & { transfer?: TransferMode },
): Promise<TransferMode> {
  let mode: TransferMode = call.transfer ?? 'direct';
  if (call.transfer === undefined && isOwnMachine(t.root.hostname)) {
    const info = await discovery.info(call);
    if (info.transfer_modes.includes('file-reference')) mode = 'file-reference';
  }
  if (mode !== 'file-reference') return mode;
  // Older servers have no file-access endpoint (bare 404); the server still enforces its policy.
  const access = await discovery.fileAccess(call).catch((err: unknown) => {
    if (err instanceof WorkbenchApiError && err.status === 404 && err.code === 'HTTP_404') return null;
    throw err;
  });
  if (!access?.restrictions_active) return mode;
  const real = await referencePath(file);
  if (await insideAllowed(real, access.allowed_paths)) return mode;
  if (call.transfer === undefined) return 'direct';
  throw new WorkbenchUsageError(
    'PATH_NOT_ALLOWED',
    `${real} is outside the workbench's allowed directories (${access.allowed_paths.join(', ') || 'none'}); move the file there or use transfer 'direct'`,
  );
}

function created(reply: Reply, transfer: TransferMode | null): CreatedNode {
  const { data, meta } = parseEnvelope(reply);
  const failed = Array.isArray(meta.failed_properties)
    ? meta.failed_properties.map((p) => (isRec(p) ? String(p.property ?? p.key ?? '') : String(p)))
    : [];
  return {
    node: node(Fields.of(reply, data, 'data')),
    transfer,
    warning: typeof meta.warning === 'string' ? meta.warning : null,
    failed_properties: failed,
  };
}

export function nodePath(uid: string): string {
  if (typeof uid !== 'string' || uid === '')
    throw new WorkbenchUsageError('INVALID_ARGUMENT', 'a node UID must be a non-empty string');
  return `/datastorage/nodes/${encodeURIComponent(uid)}`;
}
