import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { envelope, ScriptedServer } from '../helpers/scripted-server.js';

/**
 * A forward proxy that records what goes through it and answers itself, so a non-loopback
 * target name is only ever reached through it (nothing leaves the machine).
 */
interface Passed {
  method: string;
  url: string;
  authorization: string | undefined;
}
let proxy: Server;
let proxyUrl: string;
const passed: Passed[] = [];
let srv: ScriptedServer;

before(async () => {
  proxy = createServer((req, res) => {
    passed.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { status: 'healthy', via: 'proxy' } }));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  srv = await ScriptedServer.start();
});
after(async () => {
  await srv.close();
  await new Promise<void>((r) => proxy.close(() => r()));
});
beforeEach(() => {
  passed.length = 0;
  srv.reset();
  srv.on('GET', '/api/v1/health', envelope({ status: 'healthy', via: 'direct' }));
});

test('HTTP_PROXY is used for a remote host, in absolute form, with the token when explicitly allowed', async () => {
  const wb = connect({
    url: 'http://workbench.test:8080',
    token: 'abc123',
    allowInsecureToken: true,
    env: { HTTP_PROXY: proxyUrl },
  });
  assert.equal((await wb.health()).status, 'healthy');
  assert.deepEqual(passed, [
    { method: 'GET', url: 'http://workbench.test:8080/api/v1/health', authorization: 'Bearer abc123' },
  ]);
  await wb.close();
});

test('lower-case http_proxy is honoured too; NO_PROXY exempts a host', async () => {
  const wb = connect({ url: 'http://scanner.test:8099/', env: { http_proxy: proxyUrl, NO_PROXY: 'other.test' } });
  assert.equal(await wb.ping(), true);
  assert.equal(passed[0]?.url, 'http://scanner.test:8099/api/v1/health');
  // proxyLoopback routes a loopback target through the proxy unless NO_PROXY names it.
  const exempt = connect({
    url: srv.url,
    proxyLoopback: true,
    env: { HTTP_PROXY: proxyUrl, no_proxy: 'localhost,127.0.0.1' },
  });
  assert.equal(await exempt.ping(), true);
  assert.equal(passed.length, 1);
  assert.equal(srv.requests.length, 1);
});

test('proxy variables are ignored for loopback targets by default', async () => {
  const port = srv.port;
  for (const url of [srv.url, `http://localhost:${port}`]) {
    const wb = connect({ url, env: { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl } });
    assert.equal(await wb.ping(), true);
    await wb.close();
  }
  assert.equal(passed.length, 0);
  assert.equal(srv.requests.length, 2);
});

test('proxyLoopback: true sends loopback requests through the proxy as well', async () => {
  const wb = connect({ url: srv.url, proxyLoopback: true, env: { HTTP_PROXY: proxyUrl } });
  assert.equal(await wb.ping(), true);
  assert.deepEqual(
    passed.map((p) => p.url),
    [`${srv.url}/api/v1/health`],
  );
  assert.equal(srv.requests.length, 0);
});

test('the real process environment is read when no env is given', async () => {
  const saved = {
    HTTP_PROXY: process.env.HTTP_PROXY,
    http_proxy: process.env.http_proxy,
    NO_PROXY: process.env.NO_PROXY,
    no_proxy: process.env.no_proxy,
  };
  try {
    process.env.HTTP_PROXY = proxyUrl;
    delete process.env.http_proxy;
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    assert.equal(await connect({ url: 'http://remote-wb.test:8081' }).ping(), true);
    assert.equal(await connect({ url: srv.url }).ping(), true);
    assert.deepEqual(
      passed.map((p) => p.url),
      ['http://remote-wb.test:8081/api/v1/health'],
    );
    assert.equal(srv.requests.length, 1);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
