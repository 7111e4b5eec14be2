import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import {
  connect,
  WorkbenchApiError,
  WorkbenchError,
  WorkbenchProtocolError,
  type WorkbenchClient,
} from '../../src/client/index.js';
import { retryAfterMs } from '../../src/client/error-mapping.js';
import { problem, ScriptedServer } from '../helpers/scripted-server.js';

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

async function failure(p: Promise<unknown>): Promise<WorkbenchApiError> {
  const err = await p.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkbenchApiError, `not a WorkbenchApiError: ${String(err)}`);
  assert.ok(err instanceof WorkbenchError);
  return err;
}

test('a JSON problem body gives status, code, title, message, instance and type', async () => {
  srv.on('GET', '/api/v1/datastorage/nodes/nope', {
    status: 404,
    json: {
      error: {
        type: 'https://rest-api.mitk.org/errors/NODE_NOT_FOUND',
        code: 'NODE_NOT_FOUND',
        title: 'Node Not Found',
        message: "No node found with UID 'nope'",
        status: 404,
        instance: '/api/v1/datastorage/nodes/nope',
      },
    },
  });
  const e = await failure(wb.nodes.get('nope'));
  assert.equal(e.status, 404);
  assert.equal(e.code, 'NODE_NOT_FOUND');
  assert.equal(e.title, 'Node Not Found');
  assert.equal(e.message, "No node found with UID 'nope'");
  assert.equal(e.instance, '/api/v1/datastorage/nodes/nope');
  assert.equal(e.type, 'https://rest-api.mitk.org/errors/NODE_NOT_FOUND');
  assert.equal(e.method, 'GET');
  assert.equal(e.path, '/api/v1/datastorage/nodes/nope');
  assert.equal(e.retryAfterMs, null);
  assert.deepEqual(e.extra, {});
  assert.match(String(e), /NODE_NOT_FOUND 404/);
});

test('codes of several statuses come through unchanged, the HTTP status wins over the body status', async () => {
  const cases: Array<[number, string]> = [
    [400, 'INVALID_REQUEST'],
    [401, 'UNAUTHORIZED'],
    [403, 'FILE_ACCESS_DENIED'],
    [404, 'UNSUPPORTED_OPERATION'],
    [422, 'RENDERING_ERROR'],
    [500, 'RENDERER_UNAVAILABLE'],
    [503, 'EDITOR_NOT_ACTIVE'],
    [503, 'RENDER_WINDOW_NOT_AVAILABLE'],
  ];
  for (const [status, code] of cases) {
    srv.on('POST', '/api/v1/rendering/update', problem(status, code, `because ${code}`));
    const e = await failure(wb.rendering.update());
    assert.deepEqual([e.status, e.code, e.message], [status, code, `because ${code}`]);
  }
  // The workbench's NO_DATA builder writes 404 into the body of a 422 answer.
  srv.on('POST', '/api/v1/rendering/reinit', {
    status: 422,
    json: { error: { code: 'NO_DATA', title: 'No Data', message: 'no data', status: 404 } },
  });
  const e = await failure(wb.rendering.reinit(['n1']));
  assert.deepEqual([e.status, e.code], [422, 'NO_DATA']);
});

test('extra problem keys are kept raw: available_modes, children_count', async () => {
  srv.on(
    'POST',
    '/api/v1/datastorage/nodes',
    problem(406, 'TRANSFER_MODE_NOT_AVAILABLE', 'no such mode', { available_modes: ['file-reference', 'direct'] }),
  );
  const e1 = await failure(wb.nodes.create({ name: 'x' }));
  assert.deepEqual(e1.extra, { available_modes: ['file-reference', 'direct'] });
  srv.on(
    'DELETE',
    '/api/v1/datastorage/nodes/p',
    problem(409, 'NODE_HAS_CHILDREN', 'Node has 3 children.', { children_count: 3 }),
  );
  const e2 = await failure(wb.nodes.remove('p'));
  assert.equal(e2.extra.children_count, 3);
  assert.equal(e2.idempotent, true);
});

test('a bare 404 without body gets the synthetic code HTTP_404', async () => {
  srv.on('GET', '/api/v1/rendering/editors/mxn', { status: 404 });
  const e = await failure(wb.mxn.info());
  assert.equal(e.code, 'HTTP_404');
  assert.equal(e.status, 404);
  assert.equal(e.title, 'Not Found');
  assert.match(e.message, /GET \/api\/v1\/rendering\/editors\/mxn answered 404/);
});

test('a 413 without body gets HTTP_413', async () => {
  srv.on('POST', '/api/v1/datastorage/nodes', { status: 413 });
  const e = await failure(wb.nodes.create({ bytes: new Uint8Array([1, 2, 3]), format: 'nrrd' }));
  assert.deepEqual([e.status, e.code, e.title], [413, 'HTTP_413', 'Payload Too Large']);
});

test('a non-JSON 500 keeps the start of the text as message', async () => {
  const html = `<html><body>Internal failure ${'x'.repeat(500)}</body></html>`;
  srv.on('GET', '/api/v1/rendering/selected-time', {
    status: 500,
    headers: { 'content-type': 'text/html' },
    body: html,
  });
  const e = await failure(wb.rendering.time());
  assert.equal(e.code, 'HTTP_500');
  assert.equal(e.message, html.slice(0, 200));
});

test('JSON that is not a problem object (no code) is treated like a body without problem', async () => {
  srv.on('GET', '/api/v1/rendering/editors', { status: 502, json: { hello: 'proxy' } });
  const e = await failure(wb.editors.list());
  assert.equal(e.code, 'HTTP_502');
});

test('a top-level RFC 7807 object with code is understood too (detail as message)', async () => {
  srv.on('GET', '/api/v1/rendering/editors', {
    status: 400,
    json: { code: 'INVALID_REQUEST', title: 'Bad', detail: 'the detail' },
  });
  const e = await failure(wb.editors.list());
  assert.deepEqual([e.code, e.message], ['INVALID_REQUEST', 'the detail']);
});

test('429 with Retry-After seconds, or only error.retry_after', async () => {
  srv.on(
    'GET',
    '/api/v1/rendering/editors',
    problem(
      429,
      'RATE_LIMIT_EXCEEDED',
      'Too many requests. Retry after 7 seconds.',
      { retry_after: 7 },
      { 'retry-after': '7' },
    ),
  );
  const e = await failure(wb.editors.list());
  assert.deepEqual([e.status, e.code, e.retryAfterMs], [429, 'RATE_LIMIT_EXCEEDED', 7000]);
  srv.on('GET', '/api/v1/rendering/editors', problem(429, 'RATE_LIMIT_EXCEEDED', 'slow down', { retry_after: 3 }));
  assert.equal((await failure(wb.editors.list())).retryAfterMs, 3000);
});

test('Retry-After as an HTTP date is turned into a delay', () => {
  const now = Date.parse('2026-05-02T10:00:00Z');
  assert.equal(retryAfterMs('Sat, 02 May 2026 10:00:30 GMT', now), 30_000);
  assert.equal(retryAfterMs('Sat, 02 May 2026 09:00:00 GMT', now), 0);
  assert.equal(retryAfterMs('soon', now), null);
  assert.equal(retryAfterMs(' 12 ', now), 12_000);
});

test('a 2xx answer of the wrong shape is a protocol error naming the field', async () => {
  srv.on('GET', '/api/v1/rendering/selected-position', { json: { position: [1, 2], bounds: {} } });
  const err = await wb.rendering.selectedPosition().catch((e: unknown) => e);
  assert.ok(err instanceof WorkbenchProtocolError && err instanceof WorkbenchError);
  assert.equal(err.code, 'UNEXPECTED_RESPONSE');
  assert.match(err.message, /position should be an array of 3 numbers/);
  srv.on('GET', '/api/v1/rendering/selected-time', { body: 'not json' });
  const err2 = await wb.rendering.time().catch((e: unknown) => e);
  assert.ok(err2 instanceof WorkbenchProtocolError);
  assert.match(err2.message, /not JSON/);
});
