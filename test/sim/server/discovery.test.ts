import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from 'node:path';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';

test('/health answers healthy with the datastorage check and an uptime', async () => {
  await withWorkbench({}, async (wb) => {
    const a = await wb.call('GET', '/health');
    assert.equal(a.status, 200);
    assert.equal(a.headers.get('content-type'), 'application/json');
    assert.equal(a.json.data.status, 'healthy');
    assert.deepEqual(a.json.data.checks, { datastorage: 'ok' });
    assert.ok(Number.isInteger(a.json.data.uptime_seconds) && a.json.data.uptime_seconds >= 0);
    assert.equal(a.json.meta, undefined);
  });
});

test('/info names the engine version under both keys and lists the transfer modes', async () => {
  await withWorkbench({ name: 'Test bench', engineVersion: '2026.02.0' }, async (wb) => {
    const { data } = (await wb.call('GET', '/info')).json;
    assert.equal(data.name, 'Test bench');
    assert.equal(data.api_version, 'v1');
    assert.equal(data.engine_version, '2026.02.0');
    assert.equal(data.mitk_version, '2026.02.0');
    assert.equal(data.documentation_url, 'https://docs.mitk.org/2026.02/MITKRESTAPISpec.html');
    assert.deepEqual(data.capabilities, {
      transfer_modes: ['direct', 'file-reference'],
      authentication: ['api-token'],
    });
  });
  await withWorkbench({ engineVersion: '2025.12.99' }, async (wb) => {
    const { data } = (await wb.call('GET', '/info')).json;
    assert.equal(
      data.documentation_url,
      'https://docs.mitk.org/nightly/MITKRESTAPISpec.html',
      'a development build points to the nightly docs',
    );
  });
});

test('/config/file-access: unrestricted and allowed-directories forms', async () => {
  await withWorkbench({}, async (wb) => {
    const { data } = (await wb.call('GET', '/config/file-access')).json;
    assert.deepEqual(data, { mode: 'unrestricted', restrictions_active: false, max_active_temp_dirs_per_ip: 5 });
  });
  await withTempDir(async (dir) => {
    await withWorkbench({ allowedDirs: [dir], maxTempDirsPerIp: 2 }, async (wb) => {
      const { data } = (await wb.call('GET', '/config/file-access')).json;
      assert.deepEqual(data, {
        mode: 'allowed-directories',
        restrictions_active: true,
        allowed_paths: [dir],
        max_active_temp_dirs_per_ip: 2,
      });
      assert.equal(resolve(String(data.allowed_paths[0])), dir);
    });
  });
});

test('unknown routes and methods get a bare 404 without a body; CORS headers are on every answer', async () => {
  await withWorkbench({}, async (wb) => {
    for (const [method, path] of [
      ['GET', '/nothing-here'],
      ['DELETE', '/info'],
      ['GET', '/rendering/editors/foo'],
      ['GET', '/'],
    ] as const) {
      const a = await wb.call(method, path);
      assert.equal(a.status, 404, `${method} ${path}`);
      assert.equal(a.text, '', `${method} ${path} has no body`);
      assert.equal(a.headers.get('access-control-allow-origin'), '*');
    }
    const health = await wb.call('GET', '/health');
    assert.equal(health.headers.get('access-control-allow-methods'), 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
    assert.equal(
      health.headers.get('access-control-allow-headers'),
      'Content-Type, Accept, Authorization, X-MITK-Transfer-Mode',
    );
    const pre = await wb.call('OPTIONS', '/datastorage/nodes');
    assert.equal(pre.status, 204);
    assert.equal(pre.text, '');
    // The root without the prefix is not an API route either.
    const res = await fetch(`${wb.url}/health`);
    assert.equal(res.status, 404);
  });
});

test('a token narrows the CORS origin to http://localhost', async () => {
  await withWorkbench({ token: 'secret-token' }, async (wb) => {
    const a = await wb.call('GET', '/health');
    assert.equal(a.headers.get('access-control-allow-origin'), 'http://localhost');
  });
});
