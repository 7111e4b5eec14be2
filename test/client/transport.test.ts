import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { inspect } from 'node:util';
import {
  connect,
  WorkbenchApiError,
  WorkbenchNetworkError,
  WorkbenchUsageError,
  type ExchangeEvent,
} from '../../src/client/index.js';
import { networkErrorFrom } from '../../src/client/error-mapping.js';
import { envelope, problem, ScriptedServer } from '../helpers/scripted-server.js';

let srv: ScriptedServer;
before(async () => {
  srv = await ScriptedServer.start();
});
after(() => srv.close());
beforeEach(() => srv.reset());

const TOKEN = 'c0ffee00c0ffee00c0ffee00c0ffee00';

test('the base URL may end in one or more slashes, or carry /api/v1 already; /api/v1 is added once', async () => {
  srv.on('GET', '/api/v1/health', envelope({ status: 'healthy' }));
  for (const url of [srv.url, `${srv.url}/`, `${srv.url}//`, `${srv.url}/api/v1`, `${srv.url}/api/v1/`]) {
    const wb = connect({ url });
    assert.equal(wb.url, srv.url);
    assert.equal(await wb.ping(), true);
    await wb.close();
  }
  assert.deepEqual(
    srv.requests.map((r) => r.path),
    Array(5).fill('/api/v1/health'),
  );
});

test('a server root below a path prefix keeps the prefix', async () => {
  srv.on('GET', '/proxy/wb/api/v1/health', envelope({ status: 'healthy' }));
  const wb = connect({ url: `${srv.url}/proxy/wb/` });
  assert.equal(await wb.ping(), true);
  assert.equal(srv.only().path, '/proxy/wb/api/v1/health');
});

test('connect makes no request; the token goes in a Bearer header on every request', async () => {
  const wb = connect({ url: srv.url, token: TOKEN });
  assert.equal(srv.requests.length, 0);
  srv.on('GET', '/api/v1/health', envelope({ status: 'healthy' }));
  srv.on('GET', '/api/v1/rendering/editors', { json: [] });
  await wb.health();
  await wb.editors.list();
  assert.deepEqual(
    srv.requests.map((r) => r.headers.authorization),
    [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`],
  );
});

test('without a token no Authorization header is sent', async () => {
  srv.on('GET', '/api/v1/health', envelope({ status: 'healthy' }));
  await connect({ url: srv.url }).health();
  assert.equal(srv.only().headers.authorization, undefined);
});

test('a token over plain http to a remote host is refused unless allowed explicitly', () => {
  for (const url of ['http://workbench.example.org:8080', 'http://10.0.0.5:8080', 'http://[fe80::1]:8080']) {
    assert.throws(
      () => connect({ url, token: TOKEN }),
      (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'INSECURE_TOKEN' && !e.message.includes(TOKEN),
    );
    assert.doesNotThrow(() => connect({ url, token: TOKEN, allowInsecureToken: true }));
    assert.doesNotThrow(() => connect({ url }));
  }
  for (const url of [
    'https://workbench.example.org',
    'http://localhost:8080',
    'http://127.0.0.1:8080',
    'http://127.5.6.7:8080',
    'http://[::1]:8080',
  ]) {
    assert.doesNotThrow(() => connect({ url, token: TOKEN }), url);
  }
});

test('the token never appears in inspect, toString, JSON or error messages', async () => {
  const wb = connect({ url: srv.url, token: TOKEN });
  assert.ok(!inspect(wb, { showHidden: true, depth: 10 }).includes(TOKEN));
  assert.ok(!String(wb).includes(TOKEN));
  assert.ok(!JSON.stringify(wb).includes(TOKEN));
  srv.on('GET', '/api/v1/config/file-access', problem(401, 'UNAUTHORIZED', 'Invalid API token'));
  const err = await wb.fileAccess().catch((e: unknown) => e);
  assert.ok(err instanceof WorkbenchApiError);
  assert.ok(!inspect(err, { depth: 10 }).includes(TOKEN));
  const refused = await connect({ url: 'http://127.0.0.1:1', token: TOKEN })
    .health()
    .catch((e: unknown) => e);
  assert.ok(refused instanceof WorkbenchNetworkError);
  assert.ok(!inspect(refused, { depth: 10 }).includes(TOKEN) && !refused.message.includes(TOKEN));
});

test('bad URLs are refused with INVALID_URL', () => {
  for (const url of [
    'localhost:8080',
    'ftp://host',
    'not a url',
    'http://user:pw@localhost:8080',
    'http://localhost:8080/?x=1',
  ]) {
    assert.throws(
      () => connect({ url }),
      (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'INVALID_URL',
      url,
    );
  }
});

test('a server that never answers times out at the configured time, per client and per call', async () => {
  srv.on('GET', '/api/v1/health', 'hang');
  const wb = connect({ url: srv.url, timeoutMs: 200 });
  const err = await wb.health().catch((e: unknown) => e);
  assert.ok(err instanceof WorkbenchNetworkError);
  assert.equal(err.code, 'TIMEOUT');
  assert.match(err.message, /200 ms/);
  const perCall = await connect({ url: srv.url })
    .health({ timeoutMs: 150 })
    .catch((e: unknown) => e);
  assert.ok(
    perCall instanceof WorkbenchNetworkError && perCall.code === 'TIMEOUT' && perCall.message.includes('150 ms'),
  );
});

test('an AbortSignal cancels a call with ABORTED', async () => {
  srv.on('GET', '/api/v1/health', 'hang');
  const ctl = new AbortController();
  const pending = connect({ url: srv.url }).health({ signal: ctl.signal });
  setTimeout(() => ctl.abort(), 50);
  const err = await pending.catch((e: unknown) => e);
  assert.ok(err instanceof WorkbenchNetworkError && err.code === 'ABORTED');
  const already = await connect({ url: srv.url })
    .health({ signal: AbortSignal.abort() })
    .catch((e: unknown) => e);
  assert.ok(already instanceof WorkbenchNetworkError && already.code === 'ABORTED');
});

test('connection refused and a connection reset mid-request get their own codes', async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const refused = await connect({ url: `http://127.0.0.1:${port}` })
    .health()
    .catch((e: unknown) => e);
  assert.ok(refused instanceof WorkbenchNetworkError);
  assert.equal(refused.code, 'CONNECTION_REFUSED');
  assert.equal(refused.method, 'GET');
  assert.equal(refused.idempotent, true);

  srv.on('POST', '/api/v1/rendering/update', 'reset');
  const reset = await connect({ url: srv.url })
    .rendering.update()
    .catch((e: unknown) => e);
  assert.ok(reset instanceof WorkbenchNetworkError);
  assert.equal(reset.code, 'CONNECTION_RESET');
  assert.equal(reset.idempotent, false);
});

test('DNS, TLS and unknown socket failures map by error code, never by message', () => {
  const signal = new AbortController().signal;
  const target = { method: 'GET', path: '/api/v1/health' };
  const code = (err: unknown): string => networkErrorFrom(err, target, signal, 'http://x').code;
  assert.equal(code(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere'), { code: 'ENOTFOUND' })), 'DNS_FAILURE');
  assert.equal(code(Object.assign(new Error('x'), { code: 'EAI_AGAIN' })), 'DNS_FAILURE');
  assert.equal(code(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })), 'TLS_FAILURE');
  assert.equal(
    code(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })], 'all failed')),
    'CONNECTION_REFUSED',
  );
  assert.equal(
    code(Object.assign(new Error('wrapped'), { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })),
    'CONNECTION_RESET',
  );
  assert.equal(code(new Error('ECONNREFUSED in the text only')), 'NETWORK_ERROR');
});

test('onExchange sees method, path, query, status, duration and the error, never headers or the token', async () => {
  const events: ExchangeEvent[] = [];
  const wb = connect({ url: srv.url, token: TOKEN, onExchange: (e) => events.push(e) });
  srv.on('GET', '/api/v1/health', envelope({ status: 'healthy' }));
  srv.on(
    'DELETE',
    '/api/v1/datastorage/nodes/n1',
    problem(409, 'NODE_HAS_CHILDREN', 'Node has 2 children.', { children_count: 2 }),
  );
  await wb.health();
  await wb.nodes.remove('n1').catch(() => undefined);
  assert.equal(events.length, 2);
  const [ok, failed] = events;
  assert.deepEqual(
    { ...ok, durationMs: 0 },
    { method: 'GET', path: '/api/v1/health', query: '', status: 200, durationMs: 0, error: null },
  );
  assert.ok((ok?.durationMs ?? -1) >= 0);
  assert.equal(failed?.status, 409);
  assert.ok(failed?.error instanceof WorkbenchApiError && failed.error.code === 'NODE_HAS_CHILDREN');
  assert.ok(!JSON.stringify(events).includes(TOKEN));
  assert.ok(!inspect(events, { depth: 10 }).includes('authorization'));
});

test('a throwing onExchange observer does not change the result', async () => {
  srv.on('GET', '/api/v1/health', envelope({ status: 'healthy' }));
  const wb = connect({
    url: srv.url,
    onExchange: () => {
      throw new Error('observer bug');
    },
  });
  assert.equal((await wb.health()).status, 'healthy');
});

test('timeouts must be positive', () => {
  assert.throws(
    () => connect({ url: srv.url, timeoutMs: 0 }),
    (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'INVALID_ARGUMENT',
  );
});
