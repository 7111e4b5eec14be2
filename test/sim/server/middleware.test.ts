import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import type { SimRequest } from '../../../src/sim/http-types.js';
import { createWorkbench, type Workbench } from '../../../src/sim/workbench.js';
import { withWorkbench } from '../../helpers/workbench.js';

function req(path: string, init: Partial<SimRequest> = {}): SimRequest {
  return {
    method: 'GET',
    path: `/api/v1${path}`,
    query: new URLSearchParams(),
    headers: {},
    body: new Uint8Array(0),
    clientIp: '127.0.0.1',
    ...init,
  };
}

function bodyOf(res: { body?: Uint8Array | string }): { error: Record<string, unknown> } {
  return JSON.parse(typeof res.body === 'string' ? res.body : Buffer.from(res.body ?? []).toString('utf8'));
}

async function bench(options: Parameters<typeof createWorkbench>[0], clock?: { t: number }): Promise<Workbench> {
  return createWorkbench(options, clock ? { now: () => clock.t } : {});
}

test('a non-loopback client gets 403 ACCESS_DENIED on every path, /health included', async () => {
  const wb = await bench({});
  try {
    for (const path of ['/health', '/info', '/datastorage/nodes', '/nowhere']) {
      const res = await wb.handle(req(path, { clientIp: '10.1.2.3' }));
      assert.equal(res.status, 403, path);
      const { error } = bodyOf(res);
      assert.equal(error.code, 'ACCESS_DENIED');
      assert.equal(error.message, 'Client IP 10.1.2.3 is not allowed');
      assert.equal(error.instance, `/api/v1${path}`);
    }
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      assert.equal((await wb.handle(req('/health', { clientIp: ip }))).status, 200, ip);
  } finally {
    await wb.close();
  }
  const open = await bench({ clientAccess: 'all' });
  try {
    assert.equal((await open.handle(req('/health', { clientIp: '10.1.2.3' }))).status, 200);
  } finally {
    await open.close();
  }
});

test('bearer token: the three 401 messages with WWW-Authenticate; /health and /info are exempt', async () => {
  await withWorkbench({ token: 'T0ken' }, async (wb) => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'Authentication required. Provide Authorization: Bearer <token> header.'],
      [{ authorization: 'Basic abc' }, 'Invalid authorization format. Expected: Bearer <token>'],
      [{ authorization: 'bearer T0ken' }, 'Invalid authorization format. Expected: Bearer <token>'],
      [{ authorization: 'Bearer wrong' }, 'Invalid API token'],
      [{ authorization: 'Bearer T0ken2' }, 'Invalid API token'],
    ];
    for (const [headers, message] of cases) {
      const a = await wb.call('GET', '/config/file-access', { headers });
      assert.equal(a.status, 401, JSON.stringify(headers));
      assert.equal(a.headers.get('www-authenticate'), 'Bearer');
      assert.equal(a.json.error.code, 'UNAUTHORIZED');
      assert.equal(a.json.error.message, message);
      assert.ok(!a.text.includes('T0ken'), 'the token is never echoed');
    }
    assert.equal(
      (await wb.call('GET', '/config/file-access', { headers: { authorization: 'Bearer T0ken' } })).status,
      200,
    );
    assert.equal((await wb.call('GET', '/health')).status, 200);
    assert.equal((await wb.call('GET', '/info')).status, 200);
    // A preflight passes the middleware first, so without a token it is refused too.
    assert.equal((await wb.call('OPTIONS', '/datastorage/nodes')).status, 401);
    assert.equal(
      (await wb.call('OPTIONS', '/datastorage/nodes', { headers: { authorization: 'Bearer T0ken' } })).status,
      204,
    );
  });
});

test('rate limit: 429 with Retry-After on a sliding window; exempt paths and rejected requests are not counted', async () => {
  const clock = { t: 1_000_000 };
  const wb = await bench({ rateLimitPerMinute: 2 }, clock);
  try {
    assert.equal((await wb.handle(req('/datastorage/nodes'))).status, 200);
    clock.t += 20_000;
    assert.equal((await wb.handle(req('/datastorage/nodes'))).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await wb.handle(req('/health'))).status, 200, 'health is exempt');
    assert.equal((await wb.handle(req('/info'))).status, 200);
    clock.t += 10_000;
    const limited = await wb.handle(req('/datastorage/nodes'));
    assert.equal(limited.status, 429);
    // The oldest counted request (at t0) leaves the window 30 s from now.
    assert.equal(limited.headers['retry-after'], '30');
    const { error } = bodyOf(limited);
    assert.equal(error.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(error.retry_after, 30);
    assert.equal(error.message, 'Too many requests. Retry after 30 seconds.');
    // Rejected requests do not extend the window: once the first request is 60 s old, one slot frees.
    for (let i = 0; i < 3; i++) assert.equal((await wb.handle(req('/datastorage/nodes'))).status, 429);
    clock.t += 30_001;
    assert.equal((await wb.handle(req('/datastorage/nodes'))).status, 200);
    assert.equal((await wb.handle(req('/datastorage/nodes'))).status, 429);
    // Another client IP has its own window.
    assert.equal((await wb.handle(req('/datastorage/nodes', { clientIp: '::1' }))).status, 200);
  } finally {
    await wb.close();
  }
});

test('check order: client IP before rate limit before token; a limited, unauthenticated request gets 429', async () => {
  const clock = { t: 0 };
  const wb = await bench({ rateLimitPerMinute: 1, token: 'tok' }, clock);
  try {
    const auth = { authorization: 'Bearer tok' };
    assert.equal((await wb.handle(req('/datastorage/nodes', { headers: auth }))).status, 200);
    const both = await wb.handle(req('/datastorage/nodes'));
    assert.equal(both.status, 429, 'rate limit is checked before the token');
    assert.equal((await wb.handle(req('/datastorage/nodes', { clientIp: '192.168.0.9' }))).status, 403, 'IP first');
    // An unauthenticated request within the limit is 401, and a 401 is counted (it passed the limiter).
    const fresh = await bench({ rateLimitPerMinute: 1, token: 'tok' }, clock);
    try {
      assert.equal((await fresh.handle(req('/datastorage/nodes'))).status, 401);
      assert.equal((await fresh.handle(req('/datastorage/nodes', { headers: auth }))).status, 429);
    } finally {
      await fresh.close();
    }
  } finally {
    await wb.close();
  }
});

/** Sends a request with a body and a declared length over a raw socket, returning status and body. */
function rawPost(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const r = request(`${url}/api/v1/datastorage/nodes?name=big`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

test('a body over the payload limit is a bare 413, from Content-Length and while streaming', async () => {
  await withWorkbench({ maxPayloadBytes: 1000 }, async (wb) => {
    const big = Buffer.alloc(1500, 1);
    const declared = await rawPost(wb.url, big, {
      'content-type': 'application/octet-stream',
      'content-length': String(big.length),
    });
    assert.deepEqual(declared, { status: 413, text: '' });
    const streamed = await rawPost(wb.url, big, {
      'content-type': 'application/octet-stream',
      'transfer-encoding': 'chunked',
    });
    assert.deepEqual(streamed, { status: 413, text: '' });
    const nodes = await wb.call('GET', '/datastorage/nodes');
    assert.equal(nodes.json.meta.total_count, 0, 'nothing was created');
    // Just under the limit is read (and here refused as an unreadable image, not as too large).
    const small = await wb.call('POST', '/datastorage/nodes?name=x', {
      body: Buffer.alloc(900, 1),
      headers: { 'content-type': 'application/octet-stream', 'x-mitk-data-format': 'nrrd' },
    });
    assert.equal(small.status, 422);
  });
});

test('an unexpected exception becomes 500 INTERNAL_ERROR without internals, and the server keeps serving', async () => {
  await withWorkbench({}, async (wb) => {
    wb.workbench.viewer.editors = () => {
      throw new TypeError('secret internal detail');
    };
    const a = await wb.call('GET', '/rendering/editors');
    assert.equal(a.status, 500);
    assert.equal(a.json.error.code, 'INTERNAL_ERROR');
    assert.equal(a.json.error.instance, '/api/v1/rendering/editors');
    assert.ok(!a.text.includes('secret internal detail') && !a.text.includes('at '), a.text);
    assert.equal((await wb.call('GET', '/health')).status, 200);
    const logged = wb.events.entries.find((e) => e.status === 500);
    assert.equal(logged?.error, 'TypeError: secret internal detail', 'the log keeps the cause for the operator');
  });
});

test('/rendering routes are wired to the viewer behind the same middleware', async () => {
  await withWorkbench({ inactive: ['stdmulti'] }, async (wb) => {
    const editors = await wb.call('GET', '/rendering/editors');
    assert.equal(editors.status, 200);
    assert.deepEqual(
      editors.json.map((e: { alias: string; active: boolean }) => [e.alias, e.active]),
      [
        ['stdmulti', false],
        ['mxn', true],
      ],
    );
    const pos = await wb.call('GET', '/rendering/selected-position');
    assert.equal(pos.status, 503);
    assert.equal(pos.json.error.code, 'EDITOR_NOT_ACTIVE');
  });
});
