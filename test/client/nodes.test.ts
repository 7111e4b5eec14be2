import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { connect, WorkbenchUsageError, type WorkbenchClient } from '../../src/client/index.js';
import { envelope, ScriptedServer, type RecordedRequest } from '../helpers/scripted-server.js';

let srv: ScriptedServer;
let wb: WorkbenchClient;
let dir: string;
before(async () => {
  srv = await ScriptedServer.start();
  wb = connect({ url: srv.url });
  dir = await mkdtemp(join(tmpdir(), 'wbplay-client-nodes-'));
});
after(async () => {
  await wb.close();
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => srv.reset());

const node = (uid: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  uid,
  name: `name-${uid}`,
  path: `/name-${uid}`,
  parent_uid: null,
  data_type: 'Image',
  children_count: 0,
  timestamp: 7,
  ...extra,
});
const createdAnswer = (uid: string, meta: Record<string, unknown> = {}) => ({
  status: 201,
  json: { data: node(uid), meta: { location: `/api/v1/datastorage/nodes/${uid}`, ...meta } },
});
const info = (modes: string[]) =>
  envelope({ name: 'wb', api_version: 'v1', mitk_version: '1', capabilities: { transfer_modes: modes } });
const text = (r: RecordedRequest): string => r.body.toString('utf8');

test('list walks every page with limit=1000 until meta.total_count, sending filters', async () => {
  const page1 = Array.from({ length: 1000 }, (_, i) => node(`n${i}`));
  const page2 = [node('n1000'), node('n1001', { parent_uid: 'n0', data_type: null })];
  srv.on(
    'GET',
    '/api/v1/datastorage/nodes',
    envelope(page1, { total_count: 1002 }),
    envelope(page2, { total_count: 1002 }),
  );
  const nodes = await wb.nodes.list({
    hierarchy: 'toplevel',
    data_type: 'Image',
    properties: { name: 'CT*', visible: { not: true }, opacity: 0.5 },
    property_scope: 'node',
    context: 'mxn__a',
    sort: '-timestamp',
  });
  assert.equal(nodes.length, 1002);
  assert.deepEqual(nodes[1001], {
    uid: 'n1001',
    name: 'name-n1001',
    path: '/name-n1001',
    parent_uid: 'n0',
    data_type: null,
    children_count: 0,
    timestamp: 7,
  });
  const [a, b] = srv.requests;
  assert.equal(
    a?.rawQuery,
    'hierarchy=toplevel&data_type=Image&sort=-timestamp&filter.name=CT*&filter.visible!=true&filter.opacity=0.5&property_scope=node&context=mxn__a&limit=1000&offset=0',
  );
  assert.equal(b?.query.get('offset'), '1000');
  assert.equal(srv.requests.length, 2);
});

test('list without filters sends only the paging; parent_uid null is the literal null', async () => {
  srv.on('GET', '/api/v1/datastorage/nodes', envelope([node('a')], { total_count: 1 }));
  await wb.nodes.list();
  assert.equal(srv.last().rawQuery, 'limit=1000&offset=0');
  await wb.nodes.list({ parent_uid: null });
  assert.equal(srv.last().rawQuery, 'parent_uid=null&limit=1000&offset=0');
});

test('children list and get', async () => {
  srv.on(
    'GET',
    '/api/v1/datastorage/nodes/p%201/children',
    envelope([node('c')], { total_count: 1, parent_uid: 'p 1' }),
  );
  assert.deepEqual(
    (await wb.nodes.children('p 1')).map((n) => n.uid),
    ['c'],
  );
  srv.on('GET', '/api/v1/datastorage/nodes/c', envelope(node('c'), { available_contexts: [null] }));
  assert.equal((await wb.nodes.get('c')).name, 'name-c');
  srv.on('GET', '/api/v1/datastorage/nodes/gone', {
    status: 404,
    json: { error: { code: 'NODE_NOT_FOUND', message: 'x' } },
  });
  assert.equal(await wb.nodes.has('c'), true);
  assert.equal(await wb.nodes.has('gone'), false);
});

test('direct upload streams a file with octet-stream, Content-Disposition, X-MITK-Data-Format, Content-Length and ?name=', async () => {
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 17);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
  const file = join(dir, 'ct scan.nrrd');
  await writeFile(file, bytes);
  srv.on('POST', '/api/v1/datastorage/nodes', createdAnswer('n1'));
  const made = await wb.nodes.create({ file, transfer: 'direct', name: 'CT é' });
  assert.deepEqual(made, { node: node('n1'), transfer: 'direct', warning: null, failed_properties: [] });
  const r = srv.only();
  assert.equal(r.headers['content-type'], 'application/octet-stream');
  assert.equal(r.headers['content-disposition'], 'attachment; filename="ct scan.nrrd"');
  assert.equal(r.headers['x-mitk-data-format'], 'nrrd');
  assert.equal(r.headers['content-length'], String(bytes.length));
  assert.equal(r.headers['transfer-encoding'], undefined);
  assert.equal(r.rawQuery, 'name=CT%20%C3%A9');
  assert.equal(createHash('sha256').update(r.body).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
});

test('nii.gz: the format header names both parts and the filename carries no extension (works whether the server reads the last suffix or the header)', async () => {
  const file = join(dir, 'sub-01.T1w.nii.gz');
  await writeFile(file, Buffer.from([0x1f, 0x8b, 8, 0]));
  srv.on('POST', '/api/v1/datastorage/nodes', createdAnswer('n2'));
  await wb.nodes.create({ file, transfer: 'direct' });
  const r = srv.only();
  assert.equal(r.headers['x-mitk-data-format'], 'nii.gz');
  assert.equal(r.headers['content-disposition'], 'attachment; filename="sub-01_T1w"');
  assert.equal(r.query.get('name'), 'sub-01.T1w');
});

test('bytes upload (direct) with a format; a child goes to /children; properties follow in a PATCH as floats', async () => {
  srv.on('POST', '/api/v1/datastorage/nodes/parent/children', createdAnswer('kid'));
  srv.on('PATCH', '/api/v1/datastorage/nodes/kid/properties', envelope({ updated: ['opacity'], failed: [] }));
  const made = await wb.nodes.create({
    bytes: new Uint8Array([1, 2, 3]),
    format: 'vtp',
    parent: 'parent',
    properties: { opacity: 1 },
  });
  assert.equal(made.node.uid, 'kid');
  const [post, patch] = srv.requests;
  assert.deepEqual([...(post?.body ?? [])], [1, 2, 3]);
  assert.equal(post?.headers['content-disposition'], 'attachment; filename="data.vtp"');
  assert.equal(post?.rawQuery, '');
  assert.equal(patch && text(patch), '{"opacity":1}');
});

test('without a format the upload is refused before sending', async () => {
  await assert.rejects(
    wb.nodes.create({ bytes: new Uint8Array([1]) }),
    (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'INVALID_ARGUMENT',
  );
  await assert.rejects(wb.nodes.create({ file: join(dir, 'missing.nrrd'), transfer: 'direct' }), {
    code: 'FILE_NOT_FOUND',
  });
  assert.equal(srv.requests.length, 0);
});

test('an empty node is created from JSON with name and properties', async () => {
  srv.on('POST', '/api/v1/datastorage/nodes', createdAnswer('e', { failed_properties: ['bogus'] }));
  const made = await wb.nodes.create({ name: 'empty', properties: { opacity: 0.5, visible: true } });
  assert.deepEqual(made.failed_properties, ['bogus']);
  assert.equal(text(srv.only()), '{"name":"empty","properties":{"opacity":0.5,"visible":true}}');
  assert.equal(srv.only().headers['content-type'], 'application/json');
});

test('file-reference mode sends the resolved absolute path in transfer.file_path', async () => {
  const file = join(dir, 'ref.nrrd');
  await writeFile(file, 'NRRD0004\n');
  srv.on('POST', '/api/v1/datastorage/nodes', createdAnswer('r', { warning: 'File contained 2 data objects.' }));
  const made = await wb.nodes.create({
    file: join(dir, 'sub', '..', 'ref.nrrd'),
    transfer: 'file-reference',
    name: 'R',
  });
  assert.equal(made.warning, 'File contained 2 data objects.');
  assert.equal(made.transfer, 'file-reference');
  // No file-access endpoint here (a bare 404, as on older servers): nothing to check client-side.
  assert.deepEqual(
    srv.requests.map((r) => `${r.method} ${r.path}`),
    ['GET /api/v1/config/file-access', 'POST /api/v1/datastorage/nodes'],
  );
  const sent = JSON.parse(text(srv.last())) as { transfer: { file_path: string } };
  assert.deepEqual(sent, { name: 'R', transfer: { mode: 'file-reference', file_path: file } });
});

test('automatic transfer: file-reference when advertised by a server on this machine, else direct', async () => {
  const file = join(dir, 'auto.nrrd');
  await writeFile(file, 'x');
  srv.on('GET', '/api/v1/info', info(['direct', 'file-reference', 'shared-memory']));
  srv.on(
    'GET',
    '/api/v1/config/file-access',
    envelope({ mode: 'unrestricted', restrictions_active: false, max_active_temp_dirs_per_ip: 5 }),
  );
  srv.on('POST', '/api/v1/datastorage/nodes', createdAnswer('a'));
  const local = connect({ url: srv.url });
  assert.equal((await local.nodes.create({ file })).transfer, 'file-reference');
  srv.reset();
  srv.on('GET', '/api/v1/info', info(['direct']));
  srv.on('POST', '/api/v1/datastorage/nodes', createdAnswer('b'));
  const plain = connect({ url: srv.url });
  assert.equal((await plain.nodes.create({ file })).transfer, 'direct');
  assert.deepEqual(
    srv.requests.map((r) => r.path),
    ['/api/v1/info', '/api/v1/datastorage/nodes'],
  );
});

test('with restrictions active a path outside allowed_paths (also through .. or a symlink) is refused before sending', async () => {
  const allowed = join(dir, 'allowed');
  const outside = join(dir, 'outside');
  await mkdir(allowed, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(allowed, 'in.nrrd'), 'x');
  await writeFile(join(outside, 'out.nrrd'), 'x');
  await symlink(join(outside, 'out.nrrd'), join(allowed, 'link.nrrd'));
  srv.on(
    'GET',
    '/api/v1/config/file-access',
    envelope({
      mode: 'allowed-directories',
      restrictions_active: true,
      allowed_paths: [allowed],
      max_active_temp_dirs_per_ip: 5,
    }),
  );
  srv.on('GET', '/api/v1/info', info(['direct', 'file-reference']));
  srv.on('POST', '/api/v1/datastorage/nodes', createdAnswer('ok'));
  const c = connect({ url: srv.url });
  for (const bad of [
    join(outside, 'out.nrrd'),
    join(allowed, '..', 'outside', 'out.nrrd'),
    join(allowed, 'link.nrrd'),
  ]) {
    await assert.rejects(
      c.nodes.create({ file: bad, transfer: 'file-reference' }),
      (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'PATH_NOT_ALLOWED',
      bad,
    );
  }
  assert.ok(!srv.requests.some((r) => r.method === 'POST'));
  assert.equal(
    (await c.nodes.create({ file: join(allowed, 'in.nrrd'), transfer: 'file-reference' })).transfer,
    'file-reference',
  );
  // An automatic choice does not fail: it falls back to sending the bytes.
  assert.equal((await c.nodes.create({ file: join(outside, 'out.nrrd') })).transfer, 'direct');
  assert.equal(srv.last().headers['content-type'], 'application/octet-stream');
});

test('reparent and remove (recursive)', async () => {
  srv.on('PATCH', '/api/v1/datastorage/nodes/a', envelope(node('a', { parent_uid: 'b' })));
  assert.equal((await wb.nodes.reparent('a', 'b')).parent_uid, 'b');
  assert.equal(text(srv.last()), '{"parent_uid":"b"}');
  await wb.nodes.reparent('a', null);
  assert.equal(text(srv.last()), '{"parent_uid":null}');
  srv.on('DELETE', '/api/v1/datastorage/nodes/a', envelope({ deleted_uid: 'a', deleted_children: ['c2', 'c1'] }));
  assert.deepEqual(await wb.nodes.remove('a', { recursive: true }), {
    deleted_uid: 'a',
    deleted_children: ['c2', 'c1'],
  });
  assert.equal(srv.last().rawQuery, 'recursive=true');
  await wb.nodes.remove('a');
  assert.equal(srv.last().rawQuery, '');
});

test('display properties: opacity 1 goes out as 1.0, color as a ColorProperty of floats, the name in the same PATCH, parent via PATCH of the node', async () => {
  srv.on(
    'PATCH',
    '/api/v1/datastorage/nodes/n/properties',
    envelope({ updated: ['name', 'visible', 'opacity', 'color'], failed: [] }, { node_uid: 'n' }),
  );
  srv.on('PATCH', '/api/v1/datastorage/nodes/n', envelope(node('n')));
  const r = await wb.nodes.setDisplay('n', { name: 'CT', visible: true, opacity: 1, color: [1, 0, 0.5], parent: null });
  assert.deepEqual(r, { updated: ['name', 'visible', 'opacity', 'color', 'parent'], failed: [] });
  const [patch, parent] = srv.requests;
  assert.equal(
    patch && text(patch),
    '{"name":"CT","visible":true,"opacity":1.0,"color":{"type":"ColorProperty","value":[1.0,0.0,0.5]}}',
  );
  assert.equal(parent && text(parent), '{"parent_uid":null}');
});

test('a name alone goes through its own property route', async () => {
  srv.on('PUT', '/api/v1/datastorage/nodes/n/properties/name', envelope({ name: 'CT' }, { replaced: true }));
  assert.deepEqual(await wb.nodes.setDisplay('n', { name: 'CT' }), { updated: ['name'], failed: [] });
  assert.equal(srv.last().method, 'PUT');
  assert.equal(text(srv.last()), '"CT"');
});

test('display properties are checked before sending', async () => {
  for (const bad of [
    { opacity: 1.5 },
    { opacity: -0.1 },
    { opacity: NaN },
    { color: [1, 0] },
    { color: [1, 0, 2] },
    { name: '' },
    {},
  ]) {
    await assert.rejects(wb.nodes.setDisplay('n', bad as never), WorkbenchUsageError, JSON.stringify(bad));
  }
  assert.equal(srv.requests.length, 0);
});

test('a properties PATCH answered 204 (seen in mocks of the MITK client) counts every key as updated', async () => {
  srv.on('PATCH', '/api/v1/datastorage/nodes/n/properties', { status: 204 });
  assert.deepEqual(await wb.nodes.setDisplay('n', { visible: false }), { updated: ['visible'], failed: [] });
});

test('partial failure of a PATCH is reported, not hidden', async () => {
  srv.on(
    'PATCH',
    '/api/v1/datastorage/nodes/n/properties',
    envelope({ updated: ['visible'], failed: [{ property: 'opacity', error: 'bad type' }] }),
  );
  assert.deepEqual(await wb.nodes.setDisplay('n', { visible: true, opacity: 0.2 }), {
    updated: ['visible'],
    failed: [{ property: 'opacity', error: 'bad type' }],
  });
});

test('hide all: list every node, then one PATCH {visible:false} each', async () => {
  srv.on('GET', '/api/v1/datastorage/nodes', envelope([node('a'), node('b')], { total_count: 2 }));
  srv.on('PATCH', '/api/v1/datastorage/nodes/a/properties', envelope({ updated: ['visible'], failed: [] }));
  srv.on('PATCH', '/api/v1/datastorage/nodes/b/properties', { status: 204 });
  assert.deepEqual(await wb.nodes.hideAll(), ['a', 'b']);
  assert.deepEqual(
    srv.requests.map((r) => `${r.method} ${r.path} ${text(r)}`),
    [
      'GET /api/v1/datastorage/nodes ',
      'PATCH /api/v1/datastorage/nodes/a/properties {"visible":false}',
      'PATCH /api/v1/datastorage/nodes/b/properties {"visible":false}',
    ],
  );
});

test('get data: direct bytes with their file name, or the file-reference description', async () => {
  srv.on('GET', '/api/v1/datastorage/nodes/n/data', {
    headers: {
      'content-type': 'application/octet-stream',
      'content-disposition': 'attachment; filename="data_n.nrrd"',
    },
    body: Buffer.from([9, 8, 7]),
  });
  const d = await wb.nodes.getData('n');
  assert.deepEqual(d, {
    mode: 'direct',
    bytes: new Uint8Array([9, 8, 7]),
    contentType: 'application/octet-stream',
    filename: 'data_n.nrrd',
  });
  assert.equal(srv.last().headers['x-mitk-transfer-mode'], 'direct');
  const ref = {
    transfer: { mode: 'file-reference', file_path: '/tmp/x/data_n.nrrd', directory_path: '/tmp/x', size_bytes: 3 },
    data_metadata: { dimensions: [2, 2, 2] },
  };
  srv.on('GET', '/api/v1/datastorage/nodes/n/data', { json: ref });
  assert.deepEqual(await wb.nodes.getData('n', { transfer: 'file-reference' }), {
    mode: 'file-reference',
    file_path: '/tmp/x/data_n.nrrd',
    directory_path: '/tmp/x',
    size_bytes: 3,
    data_metadata: { dimensions: [2, 2, 2] },
  });
  assert.equal(srv.last().headers['x-mitk-transfer-mode'], 'file-reference');
  assert.equal(srv.last().headers.accept, 'application/json');
});

test('carrying: one filtered listing when the server applied the filter, else each node is asked for the property', async () => {
  const echo = {
    total_count: 1,
    filters: { property_filters: [{ key: 'wbplay.marker', value: '*', negated: false }] },
  };
  srv.on('GET', '/api/v1/datastorage/nodes', envelope([node('m')], echo));
  assert.deepEqual(
    (await wb.nodes.carrying('wbplay.marker')).map((n) => n.uid),
    ['m'],
  );
  assert.equal(srv.only().query.get('filter.wbplay.marker'), '*');
  assert.equal(srv.only().query.get('property_scope'), 'node');

  // A server without property filters answers with every node and says nothing of the filter:
  // trusting that answer would take a person's node for one of wbplay's.
  srv.reset();
  srv.on('GET', '/api/v1/datastorage/nodes', envelope([node('m'), node('p')], { total_count: 2 }));
  srv.on('GET', '/api/v1/datastorage/nodes/m/properties', envelope({ properties: ['name', 'wbplay.marker'] }));
  srv.on('GET', '/api/v1/datastorage/nodes/p/properties', envelope({ properties: ['name', 'visible'] }));
  assert.deepEqual(
    (await wb.nodes.carrying('wbplay.marker')).map((n) => n.uid),
    ['m'],
  );
  assert.deepEqual(
    srv.requests.map((r) => r.path),
    ['/api/v1/datastorage/nodes', '/api/v1/datastorage/nodes/m/properties', '/api/v1/datastorage/nodes/p/properties'],
  );
});
