import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTempDir, withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';
import { property, ramp, upload } from './display-view.js';
import { writeImage } from './volumes.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

async function expect400(wb: TestWorkbench, method: string, path: string, body?: string): Promise<string> {
  const res = await wb.call(method, path, body === undefined ? {} : { body, headers: JSON_HEADERS });
  assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
  assert.equal(res.json.error.code, 'INVALID_REQUEST');
  return res.json.error.message as string;
}

// Modules/RESTAPI/test/mitkInputValidationTest.cpp: UIDs and keys are checked before the node
// is looked up, so a malformed one is a 400 even for a node that does not exist.
test('a UID of other characters than letters, digits, - and _, or longer than 64, is a 400 before any lookup', async () => {
  await withWorkbench({}, async (wb) => {
    for (const uid of ['abc..etc', 'a.b', 'a%20b', 'a'.repeat(65), 'x%2F..%2Fetc'])
      await expect400(wb, 'GET', `/datastorage/nodes/${uid}`);
    await expect400(wb, 'GET', `/datastorage/nodes/a.b/properties`);
    await expect400(wb, 'PUT', `/datastorage/nodes/a.b/properties/visible`, 'true');
    await expect400(wb, 'DELETE', `/datastorage/nodes/a.b`);
    for (const uid of ['abc-123-def', 'node_42', 'a'.repeat(64)]) {
      const res = await wb.call('GET', `/datastorage/nodes/${uid}`);
      assert.equal(res.status, 404, uid);
      assert.equal(res.json.error.code, 'NODE_NOT_FOUND');
    }
  });
});

test('a property key with control characters, starting with restapi., or over 256 characters is a 400 before the lookup', async () => {
  await withWorkbench({}, async (wb) => {
    const path = (key: string): string => `/datastorage/nodes/test-uid/properties/${encodeURIComponent(key)}`;
    for (const key of ['bad\nkey', 'tab\there', 'restapi.internal', 'k'.repeat(257)])
      await expect400(wb, 'PUT', path(key), '{"value": "test"}');
    await expect400(wb, 'DELETE', path('bad\nkey'));
    await expect400(wb, 'GET', path('k'.repeat(257)));
    // A good key on a missing node is the lookup's 404; 256 characters are allowed.
    const missing = await wb.call('PUT', path('k'.repeat(256)), { body: '1', headers: JSON_HEADERS });
    assert.equal(missing.status, 404);
    // Reading a restapi. key is not refused but answers as if it were absent, as the bridge does.
    const uid = (await wb.call('POST', '/datastorage/nodes', { json: { name: 'N' } })).json.data.uid;
    assert.equal((await wb.call('GET', `/datastorage/nodes/${uid}/properties/restapi.uid`)).status, 404);
    // In a body, such keys fail one by one.
    const res = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, {
      json: { 'restapi.x': 1, ['ctl\u0001']: 2, fine: 3 },
    });
    assert.deepEqual(
      res.json.data.failed.map((f: { property: string }) => f.property),
      ['restapi.x', 'ctl\u0001'],
    );
    assert.deepEqual(res.json.data.updated, ['fine']);
  });
});

// The reference lists property_scope=all as "ignored" on writes; MITK's code refuses it
// (mitkDataStorageBridgeTest.cpp, MutationRejectsAllScope) and the code wins here. MITK's
// controller answers the refused PUT-all and DELETE with a 500; this workbench says 400, which
// a client must treat as an error either way.
test('property_scope=all is refused on writes and deletes; a PATCH lists every key as failed', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = (await wb.call('POST', '/datastorage/nodes', { json: { name: 'N' } })).json.data.uid;
    const base = `/datastorage/nodes/${uid}/properties`;
    await expect400(wb, 'PUT', `${base}/visible?property_scope=all`, 'false');
    await expect400(wb, 'PUT', `${base}?property_scope=all`, '{"visible": false}');
    await expect400(wb, 'DELETE', `${base}/visible?property_scope=all`);
    const res = await wb.call('PATCH', `${base}?property_scope=all`, { json: { visible: false } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.data.updated, []);
    assert.equal(res.json.data.failed[0].property, 'visible');
    assert.equal(await property(wb, uid, 'visible'), true, 'nothing changed');
    const name = await wb.call('DELETE', `${base}/name?property_scope=all`);
    assert.equal(name.json.error.code, 'PROPERTY_PROTECTED', 'the name is protected first');
  });
});

test('a value of another class than the stored one keeps the old value, and the call still succeeds', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(wb, ramp());
    const put = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/opacity`, {
      body: '0',
      headers: JSON_HEADERS,
    });
    assert.equal(put.status, 200);
    assert.equal(put.json.data.opacity, 1, 'the answer reads the property back: still the float 1.0');
    const patch = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, {
      body: '{"texture interpolation": 1, "layer": 3}',
      headers: JSON_HEADERS,
    });
    assert.deepEqual(patch.json.data, { failed: [], updated: ['texture interpolation', 'layer'] });
    assert.equal(await property(wb, uid, 'texture interpolation'), false);
    assert.equal(await property(wb, uid, 'layer'), 3);
    const mode = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, {
      json: { 'Image Rendering.Mode': 'LookupTable_Color' },
    });
    assert.equal(mode.status, 200);
    assert.deepEqual(await property(wb, uid, 'Image Rendering.Mode'), {
      type: 'RenderingModeProperty',
      value: 'LookupTable_LevelWindow_Color',
    });
  });
});

test('a typed value that is malformed is a 400: a level window missing a key, a short table, an unknown mode', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await upload(wb, ramp());
    const lw = (await property(wb, uid, 'levelwindow')) as { type: string; value: Record<string, unknown> };
    const { Fixed: _fixed, ...noFixed } = lw.value;
    const path = (key: string): string => `/datastorage/nodes/${uid}/properties/${encodeURIComponent(key)}`;
    let message = await expect400(wb, 'PUT', path('levelwindow'), JSON.stringify({ ...lw, value: noFixed }));
    assert.match(message, /CurrentSettings/, 'the message shows the whole form');
    const lut = (await property(wb, uid, 'LookupTable')) as { type: string; value: { Table: unknown[] } };
    message = await expect400(
      wb,
      'PUT',
      path('LookupTable'),
      JSON.stringify({ ...lut, value: { ...lut.value, Table: lut.value.Table.slice(0, 10) } }),
    );
    assert.match(message, /10 entries/);
    await expect400(
      wb,
      'PUT',
      path('LookupTable'),
      JSON.stringify({ ...lut, value: { ...lut.value, Table: [[2, 0, 0, 1], ...lut.value.Table.slice(1)] } }),
    );
    message = await expect400(
      wb,
      'PUT',
      path('Image Rendering.Mode'),
      '{"type": "RenderingModeProperty", "value": "LookupTable"}',
    );
    assert.match(message, /LookupTable_LevelWindow_Color/);
    const patch = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, {
      json: { 'reslice interpolation': { type: 'VtkResliceInterpolationProperty', value: 'Bicubic' } },
    });
    assert.equal(patch.json.data.failed[0].property, 'reslice interpolation');
    // No value at all is the class's default-constructed property: a grey table.
    const bare = await wb.call('PUT', path('LookupTable'), { json: { type: 'LookupTableProperty' } });
    assert.equal(bare.status, 200);
  });
});

test('properties sent with a new node go on before its data: a level window stays, the lookup table becomes grey', async () => {
  await withWorkbench({}, async (wb) => {
    const first = await upload(wb, ramp());
    const lw = (await property(wb, first, 'levelwindow')) as { value: { CurrentSettings: unknown } };
    lw.value.CurrentSettings = { Level: 10, Window: 20 };
    const lut = (await property(wb, first, 'LookupTable')) as { value: { Table: number[][] } };
    lut.value.Table = lut.value.Table.map(() => [1, 0, 0, 1]);
    await withTempDir(async (dir) => {
      const file = await writeImage(dir, 'ramp.nrrd', ramp());
      const res = await wb.call('POST', '/datastorage/nodes', {
        json: {
          name: 'R',
          properties: { levelwindow: lw, LookupTable: lut },
          transfer: { mode: 'file-reference', file_path: file },
        },
      });
      assert.equal(res.status, 201, res.text);
      const uid = res.json.data.uid;
      const back = (await property(wb, uid, 'levelwindow')) as { value: { CurrentSettings: unknown } };
      assert.deepEqual(back.value.CurrentSettings, { Level: 10, Window: 20 });
      const table = (await property(wb, uid, 'LookupTable')) as { value: { Table: number[][] } };
      assert.deepEqual(
        table.value.Table[255],
        [1, 1, 1, 1],
        'SetDefaultProperties sets the grey table unconditionally',
      );
    });
  });
});
