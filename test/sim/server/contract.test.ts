import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertContract, contractErrors, templateOf } from '../../helpers/contract.js';
import { withTempDir, withWorkbench, type TestWorkbench, type CallInit } from '../../helpers/workbench.js';
import { imageBytes, smallVolume, writeImage } from './volumes.js';

/**
 * Every JSON answer of the discovery and data-storage endpoints, successes and errors, checked
 * against the schemas of the official contract (openapi-1.2.0.json, read from the shared
 * references; see the helper for where and how to override).
 */

async function checked(
  wb: TestWorkbench,
  method: string,
  path: string,
  status: number,
  init: CallInit = {},
): Promise<unknown> {
  const a = await wb.call(method, path, init);
  assert.equal(a.status, status, `${method} ${path}: ${a.text}`);
  assert.ok(a.json !== undefined, `${method} ${path} answers JSON`);
  assertContract(method, `/api/v1${path}`, status, a.json);
  return a.json;
}

test('the wire schema resolves path templates and refuses what does not conform', () => {
  assert.equal(
    templateOf('/api/v1/datastorage/nodes/node_1/properties/opacity'),
    '/datastorage/nodes/{uid}/properties/{property_key}',
  );
  assert.equal(templateOf('/api/v1/rendering/editors/stdmulti/windows'), '/rendering/editors/stdmulti/windows');
  // A node without its required keys must be refused, or the checks below would prove nothing.
  assert.notDeepEqual(contractErrors('GET', '/api/v1/datastorage/nodes/x', 200, { data: { uid: 'x' } }), []);
  assert.notDeepEqual(contractErrors('GET', '/api/v1/info', 200, { data: { name: 1 } }), []);
  assert.notDeepEqual(
    contractErrors('GET', '/api/v1/datastorage/nodes/x', 404, { error: { code: 'NODE_NOT_FOUND' } }),
    [],
  );
  // Where the contract refers MxN PUTs to a response it never defines (core reference §6.23), the
  // wire schema has the error envelope the workbench sends.
  assert.notDeepEqual(contractErrors('PUT', '/api/v1/rendering/editors/mxn/windows/mxn__w/camera', 422, {}), []);
  assert.deepEqual(
    contractErrors('PUT', '/api/v1/rendering/editors/mxn/windows/mxn__w/camera', 422, {
      error: {
        type: 'about:blank',
        code: 'INVALID_ARGUMENT',
        title: 'Invalid',
        message: 'm',
        status: 422,
        instance: '/api/v1/x',
      },
    }),
    [],
  );
});

test('discovery answers match the contract', async () => {
  await withWorkbench({}, async (wb) => {
    await checked(wb, 'GET', '/health', 200);
    await checked(wb, 'GET', '/info', 200);
    await checked(wb, 'GET', '/config/file-access', 200);
  });
  await withTempDir(async (dir) => {
    await withWorkbench({ allowedDirs: [dir], token: 'tok' }, async (wb) => {
      await checked(wb, 'GET', '/config/file-access', 200, { headers: { authorization: 'Bearer tok' } });
      await checked(wb, 'GET', '/config/file-access', 401);
    });
  });
});

test('data-storage answers match the contract, successes and errors', async () => {
  await withTempDir(async (dir) => {
    const file = await writeImage(dir, 'seg.nrrd', smallVolume({ segmentation: true }));
    await withWorkbench({}, async (wb) => {
      const auth = { 'content-type': 'application/json' };
      const created = (await checked(wb, 'POST', '/datastorage/nodes', 201, {
        json: { name: 'CT', properties: { opacity: 0.5, bad: [1] } },
      })) as { data: { uid: string } };
      const uid = created.data.uid;
      const child = (
        (await checked(wb, 'POST', `/datastorage/nodes/${uid}/children`, 201, {
          json: { name: 'seg', transfer: { file_path: file } },
        })) as { data: { uid: string } }
      ).data.uid;
      await checked(wb, 'POST', '/datastorage/nodes?name=img', 201, {
        body: imageBytes(),
        headers: { 'content-type': 'application/octet-stream', 'x-mitk-data-format': 'nrrd' },
      });

      await checked(wb, 'GET', '/datastorage/nodes?limit=1&sort=-name&filter.visible=true', 200);
      // `fields` trims the node object, whose seven keys the contract marks required: a known gap of the contract.
      const trimmed = await wb.call('GET', '/datastorage/nodes?fields=uid,name');
      assert.notDeepEqual(contractErrors('GET', '/api/v1/datastorage/nodes', 200, trimmed.json), []);
      await checked(wb, 'GET', '/datastorage/nodes?path=/CT/seg', 200);
      await checked(wb, 'GET', `/datastorage/nodes/${uid}`, 200);
      await checked(wb, 'GET', `/datastorage/nodes/${uid}/children?limit=1`, 200);
      await checked(wb, 'PATCH', `/datastorage/nodes/${child}`, 200, { json: { parent_uid: null } });
      await checked(wb, 'PATCH', `/datastorage/nodes/${child}`, 200, { json: { parent_uid: uid } });
      await checked(wb, 'PUT', `/datastorage/nodes/${uid}/data`, 200, {
        body: imageBytes(),
        headers: {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="ct.nrrd"',
        },
      });
      await checked(wb, 'GET', `/datastorage/nodes/${uid}/data`, 200, {
        headers: { 'x-mitk-transfer-mode': 'file-reference' },
      });

      await checked(wb, 'GET', `/datastorage/nodes/${uid}/properties`, 200);
      await checked(wb, 'PATCH', `/datastorage/nodes/${uid}/properties`, 200, {
        json: { visible: false, c: { type: 'ColorProperty', value: [1, 0] } },
      });
      await checked(wb, 'PUT', `/datastorage/nodes/${uid}/properties?context=axial`, 200, { json: { visible: true } });
      // The contract's schema types data as the bare value; its example, the spec and the server key it by name.
      await checked(wb, 'GET', `/datastorage/nodes/${uid}/properties/opacity`, 200);
      await checked(wb, 'PUT', `/datastorage/nodes/${uid}/properties/opacity`, 200, {
        body: '{"value": 0.75}',
        headers: auth,
      });
      await checked(wb, 'DELETE', `/datastorage/nodes/${uid}/properties/opacity`, 200);
      // content=false lists names as an array (spec and server), which the contract's schema (an object) does not describe.
      const names = await wb.call('GET', `/datastorage/nodes/${uid}/properties?content=false`);
      assert.notDeepEqual(
        contractErrors('GET', `/api/v1/datastorage/nodes/${uid}/properties`, 200, names.json),
        [],
        'a known difference of the contract',
      );

      // Errors.
      await checked(wb, 'GET', '/datastorage/nodes/ghost', 404);
      await checked(wb, 'POST', '/datastorage/nodes', 400, { body: '{', headers: auth });
      await checked(wb, 'POST', '/datastorage/nodes', 406, {
        json: { transfer: { mode: 'carrier-pigeon', file_path: file } },
      });
      await checked(wb, 'POST', '/datastorage/nodes', 415, { body: 'x', headers: { 'content-type': 'text/plain' } });
      await checked(wb, 'POST', '/datastorage/nodes', 422, {
        json: { transfer: { file_path: `${dir}/missing.nrrd` } },
      });
      await checked(wb, 'PATCH', `/datastorage/nodes/${uid}`, 409, { json: { parent_uid: child } });
      await checked(wb, 'DELETE', `/datastorage/nodes/${uid}`, 409);
      await checked(wb, 'GET', `/datastorage/nodes/${uid}/properties/missing`, 404);
      await checked(wb, 'DELETE', `/datastorage/nodes/${uid}/properties/name`, 400);
      await checked(wb, 'PUT', `/datastorage/nodes/${uid}/properties/x`, 400, { json: null });
      await checked(wb, 'PUT', `/datastorage/nodes/${uid}/data`, 415, {
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      const empty = ((await checked(wb, 'POST', '/datastorage/nodes', 201, { json: {} })) as { data: { uid: string } })
        .data.uid;
      await checked(wb, 'GET', `/datastorage/nodes/${empty}/data`, 404);

      const deleted = await checked(wb, 'DELETE', `/datastorage/nodes/${uid}?recursive=true`, 200);
      assert.deepEqual(deleted, { data: { deleted_uid: uid, deleted_children: [child] } });
    });
  });
});

test('middleware answers match the contract: 403, 429', async () => {
  await withWorkbench({ rateLimitPerMinute: 1 }, async (wb) => {
    await checked(wb, 'GET', '/datastorage/nodes', 200);
    await checked(wb, 'GET', '/datastorage/nodes', 429);
  });
  await withWorkbench({}, async (wb) => {
    // The contract lists the 403 on the protected operations only, although /health and /info get it too.
    const res = await wb.workbench.handle({
      method: 'GET',
      path: '/api/v1/datastorage/nodes',
      query: new URLSearchParams(),
      headers: {},
      body: new Uint8Array(0),
      clientIp: '203.0.113.9',
    });
    assert.equal(res.status, 403);
    assertContract('GET', '/api/v1/datastorage/nodes', 403, JSON.parse(String(res.body)));
  });
});
