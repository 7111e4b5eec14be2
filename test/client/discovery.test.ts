import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { envelope, problem, ScriptedServer } from '../helpers/scripted-server.js';

let srv: ScriptedServer;
before(async () => {
  srv = await ScriptedServer.start();
});
after(() => srv.close());
beforeEach(() => srv.reset());

test('info as the workbench writes it: mitk_version and capabilities.transfer_modes', async () => {
  srv.on(
    'GET',
    '/api/v1/info',
    envelope({
      name: 'MITK Workbench REST API',
      api_version: 'v1',
      mitk_version: '2026.02.0',
      documentation_url: 'https://docs.mitk.org/2026.02/MITKRESTAPISpec.html',
      capabilities: { transfer_modes: ['direct', 'file-reference'], authentication: ['api-token'] },
    }),
  );
  const info = await connect({ url: srv.url }).info();
  assert.deepEqual(info, {
    name: 'MITK Workbench REST API',
    api_version: 'v1',
    engine_version: '2026.02.0',
    transfer_modes: ['direct', 'file-reference'],
    documentation_url: 'https://docs.mitk.org/2026.02/MITKRESTAPISpec.html',
  });
});

test('info as the interface document names it: engine_version and a top-level transfer_modes list; unknown modes kept', async () => {
  srv.on(
    'GET',
    '/api/v1/info',
    envelope({
      name: 'wb',
      api_version: 'v1',
      engine_version: '2027.1',
      transfer_modes: ['direct', 'shared-memory', 'file-reference'],
    }),
  );
  const info = await connect({ url: srv.url }).info();
  assert.equal(info.engine_version, '2027.1');
  assert.deepEqual(info.transfer_modes, ['direct', 'shared-memory', 'file-reference']);
  assert.equal(info.documentation_url, null);
});

test('engine_version wins over mitk_version when both are present; missing fields default to empty', async () => {
  srv.on(
    'GET',
    '/api/v1/info',
    envelope({ engine_version: 'E', mitk_version: 'M', capabilities: { transfer_modes: ['quantum'] } }),
  );
  const info = await connect({ url: srv.url }).info();
  assert.deepEqual([info.engine_version, info.name, info.api_version, info.transfer_modes], ['E', '', '', ['quantum']]);
});

test('info is fetched once and cached; refresh fetches again; a failure is not cached', async () => {
  srv.on(
    'GET',
    '/api/v1/info',
    problem(503, 'DATASTORAGE_NOT_AVAILABLE', 'later'),
    envelope({ name: 'a' }),
    envelope({ name: 'b' }),
  );
  const wb = connect({ url: srv.url });
  await assert.rejects(wb.info(), { code: 'DATASTORAGE_NOT_AVAILABLE' });
  const [x, y] = await Promise.all([wb.info(), wb.info()]);
  assert.equal(x.name, 'a');
  assert.equal(y, x);
  assert.equal((await wb.info()).name, 'a');
  assert.equal((await wb.info({ refresh: true })).name, 'b');
  assert.equal(srv.requests.length, 3);
});

test('file-access configuration, unrestricted and restricted', async () => {
  srv.on(
    'GET',
    '/api/v1/config/file-access',
    envelope({ mode: 'unrestricted', restrictions_active: false, max_active_temp_dirs_per_ip: 5 }),
  );
  assert.deepEqual(await connect({ url: srv.url }).fileAccess(), {
    mode: 'unrestricted',
    restrictions_active: false,
    max_active_temp_dirs_per_ip: 5,
    allowed_paths: [],
  });
  srv.on(
    'GET',
    '/api/v1/config/file-access',
    envelope({
      mode: 'allowed-directories',
      restrictions_active: true,
      allowed_paths: ['/data/images'],
      max_active_temp_dirs_per_ip: 2,
    }),
  );
  assert.deepEqual(await connect({ url: srv.url }).fileAccess(), {
    mode: 'allowed-directories',
    restrictions_active: true,
    max_active_temp_dirs_per_ip: 2,
    allowed_paths: ['/data/images'],
  });
});

test('health parses the body; ping is true on any 2xx and false otherwise, never throwing', async () => {
  srv.on('GET', '/api/v1/health', envelope({ status: 'healthy', checks: { datastorage: 'ok' }, uptime_seconds: 12 }));
  const wb = connect({ url: srv.url });
  assert.deepEqual(await wb.health(), { status: 'healthy', checks: { datastorage: 'ok' }, uptime_seconds: 12 });
  srv.on('GET', '/api/v1/health', { status: 204 });
  assert.equal(await wb.ping(), true);
  srv.on('GET', '/api/v1/health', problem(403, 'ACCESS_DENIED', 'Client IP is not allowed'));
  assert.equal(await wb.ping(), false);
  assert.equal(await connect({ url: 'http://127.0.0.1:1' }).ping(), false);
});
