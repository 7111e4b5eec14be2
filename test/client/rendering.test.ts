import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { connect, float, WorkbenchUsageError, type WorkbenchClient } from '../../src/client/index.js';
import { captureBytes } from '../helpers/captures.js';
import { envelope, ScriptedServer, type RecordedRequest } from '../helpers/scripted-server.js';

let srv: ScriptedServer;
let wb: WorkbenchClient;
before(async () => {
  srv = await ScriptedServer.start();
  wb = connect({ url: srv.url });
});
after(async () => {
  await wb.close();
  await srv.close();
});
beforeEach(() => srv.reset());

const text = (r: RecordedRequest): string => r.body.toString('utf8');
const PNG = captureBytes('png');
const JPEG = captureBytes('jpeg');

test('update posts {type}, all by default', async () => {
  srv.on('POST', '/api/v1/rendering/update', { status: 204 });
  await wb.rendering.update();
  await wb.rendering.update('2d');
  await wb.rendering.update('3d');
  assert.deepEqual(srv.requests.map(text), ['{"type":"all"}', '{"type":"2d"}', '{"type":"3d"}']);
  assert.equal(srv.last().headers['content-type'], 'application/json');
  await assert.rejects(wb.rendering.update('4d' as never), WorkbenchUsageError);
});

test('reinit with no node, one UID or several; an empty list is refused', async () => {
  srv.on('POST', '/api/v1/rendering/reinit', { status: 204 });
  await wb.rendering.reinit();
  await wb.rendering.reinit('a');
  await wb.rendering.reinit(['a', 'b']);
  assert.deepEqual(srv.requests.map(text), ['{}', '{"uids":["a"]}', '{"uids":["a","b"]}']);
  await assert.rejects(
    wb.rendering.reinit([]),
    (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'INVALID_ARGUMENT',
  );
  assert.equal(srv.requests.length, 3);
});

test('global selected position: bare body read, three finite numbers written as floats', async () => {
  srv.on('GET', '/api/v1/rendering/selected-position', {
    json: {
      position: [47.5, 47.5, 36.25],
      bounds: { min_position: [-0.5, -0.5, -1.25], max_position: [95.5, 95.5, 78.75] },
    },
  });
  assert.deepEqual(await wb.rendering.selectedPosition(), {
    position: [47.5, 47.5, 36.25],
    bounds: { min_position: [-0.5, -0.5, -1.25], max_position: [95.5, 95.5, 78.75] },
  });
  srv.on('GET', '/api/v1/rendering/selected-position', {
    json: { position: [0, 0, 0], bounds: { min_position: null, max_position: null } },
  });
  assert.deepEqual((await wb.rendering.selectedPosition()).bounds, { min_position: null, max_position: null });
  srv.on('PUT', '/api/v1/rendering/selected-position', { status: 204 });
  await wb.rendering.setSelectedPosition([10, 20.5, -3]);
  assert.equal(text(srv.last()), '{"position":[10.0,20.5,-3.0]}');
  for (const bad of [
    [1, 2],
    [1, 2, 3, 4],
    [1, NaN, 2],
    [1, '2', 3],
  ]) {
    await assert.rejects(wb.rendering.setSelectedPosition(bad as never), WorkbenchUsageError, JSON.stringify(bad));
  }
  assert.equal(srv.requests.filter((r) => r.method === 'PUT').length, 1);
});

test('global time: read, set by milliseconds (float) or by zero-based step (integer)', async () => {
  srv.on('GET', '/api/v1/rendering/selected-time', {
    json: { timepoint_ms: 1500.0, timestep: 3, bounds: { min_timepoint_ms: 0.0, max_timepoint_ms: 4500.0, steps: 10 } },
  });
  assert.deepEqual(await wb.rendering.time(), {
    timepoint_ms: 1500,
    timestep: 3,
    bounds: { min_timepoint_ms: 0, max_timepoint_ms: 4500, steps: 10 },
  });
  srv.on('PUT', '/api/v1/rendering/selected-time', { status: 204 });
  await wb.rendering.setTime({ timepoint_ms: 2000 });
  await wb.rendering.setTime({ timestep: 0 });
  assert.deepEqual(srv.requests.slice(1).map(text), ['{"timepoint_ms":2000.0}', '{"timestep":0}']);
  for (const bad of [
    {},
    { timestep: -1 },
    { timestep: 1.5 },
    { timepoint_ms: Infinity },
    { timestep: 1, timepoint_ms: 2 },
  ]) {
    await assert.rejects(wb.rendering.setTime(bad as never), WorkbenchUsageError, JSON.stringify(bad));
  }
});

test('application screenshot: png by default, format always sent, bytes and content type returned', async () => {
  srv.on('GET', '/api/v1/rendering/screenshot', (req) =>
    req.query.get('format') === 'jpeg'
      ? { headers: { 'content-type': 'image/jpeg' }, body: JPEG }
      : { headers: { 'content-type': 'image/png' }, body: PNG },
  );
  const png = await wb.rendering.screenshot();
  assert.deepEqual(png, { bytes: new Uint8Array(PNG), contentType: 'image/png' });
  assert.equal(srv.last().rawQuery, 'format=png');
  const jpeg = await wb.rendering.screenshot({ format: 'jpeg', width: 640, height: 480 });
  assert.deepEqual(Buffer.from(jpeg.bytes), JPEG);
  assert.equal(jpeg.contentType, 'image/jpeg');
  assert.equal(srv.last().rawQuery, 'format=jpeg&width=640&height=480');
  assert.equal(srv.last().headers.accept, 'image/jpeg');
});

test('screenshot parameters are checked before sending: both sides together, 1..8192, png or jpeg', async () => {
  const bad = [
    { width: 100 },
    { height: 100 },
    { width: 0, height: 10 },
    { width: 8193, height: 10 },
    { width: 10.5, height: 10 },
    { format: 'jpg' },
    { format: 'gif' },
  ];
  for (const opts of bad)
    await assert.rejects(
      wb.rendering.screenshot(opts as never),
      (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'INVALID_ARGUMENT',
      JSON.stringify(opts),
    );
  assert.equal(srv.requests.length, 0);
  srv.on('GET', '/api/v1/rendering/screenshot', { headers: { 'content-type': 'image/png' }, body: PNG });
  await wb.rendering.screenshot({ width: 8192, height: 1 });
  assert.equal(srv.only().rawQuery, 'format=png&width=8192&height=1');
});

test('generic properties: get, list, names, set, patch, replace, delete with scope and context', async () => {
  const p = wb.properties;
  srv.on(
    'GET',
    '/api/v1/datastorage/nodes/n/properties/color',
    envelope({ color: { type: 'ColorProperty', value: [1, 0, 0] } }, { node_uid: 'n' }),
  );
  assert.deepEqual(await p.get('n', 'color', { scope: 'node', context: 'stdmulti.widget0' }), {
    type: 'ColorProperty',
    value: [1, 0, 0],
  });
  assert.equal(srv.last().rawQuery, 'property_scope=node&context=stdmulti.widget0');

  srv.on('GET', '/api/v1/datastorage/nodes/n/properties', (req) =>
    req.query.get('content') === 'false'
      ? envelope({ properties: ['name', 'visible'] })
      : envelope({ properties: { name: 'CT', visible: true } }, { count: 2 }),
  );
  assert.deepEqual(await p.list('n', { names: ['name', 'visible'], scope: 'all' }), { name: 'CT', visible: true });
  assert.equal(srv.last().rawQuery, 'property_scope=all&names=name%2Cvisible');
  assert.deepEqual(await p.names('n'), ['name', 'visible']);
  assert.equal(srv.last().rawQuery, 'content=false');

  srv.on('PUT', '/api/v1/datastorage/nodes/n/properties/opacity', envelope({ opacity: 1.0 }, { replaced: true }));
  assert.deepEqual(await p.set('n', 'opacity', float(1), { scope: 'data' }), { replaced: true });
  assert.equal(text(srv.last()), '1.0');
  assert.equal(srv.last().rawQuery, 'property_scope=data');
  await p.set('n', 'opacity', { type: 'FloatProperty', value: 1 });
  assert.equal(text(srv.last()), '{"type":"FloatProperty","value":1}');

  srv.on('PATCH', '/api/v1/datastorage/nodes/n/properties', envelope({ updated: ['layer'], failed: [] }));
  assert.deepEqual(await p.patch('n', { layer: 3 }, { context: 'mxn__a' }), { updated: ['layer'], failed: [] });
  assert.equal(text(srv.last()), '{"layer":3}');

  srv.on('PUT', '/api/v1/datastorage/nodes/n/properties', envelope({ replaced: ['visible'], removed: ['opacity'] }));
  assert.deepEqual(await p.replace('n', { visible: false }), { replaced: ['visible'], removed: ['opacity'] });

  srv.on('DELETE', '/api/v1/datastorage/nodes/n/properties/my%20key', envelope({ deleted: 'my key' }));
  await p.delete('n', 'my key', { scope: 'node' });
  assert.equal(srv.last().path, '/api/v1/datastorage/nodes/n/properties/my%20key');

  await assert.rejects(p.set('n', 'x', 1, { scope: 'all' }), WorkbenchUsageError);
  await assert.rejects(p.patch('n', {}), (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'EMPTY_PATCH');
});
