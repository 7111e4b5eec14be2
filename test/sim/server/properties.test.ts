import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

async function node(wb: TestWorkbench, name = 'N'): Promise<string> {
  return (await wb.call('POST', '/datastorage/nodes', { json: { name } })).json.data.uid;
}

/** The property as stored, read back through the single-property route (raw text keeps 1 vs 1.0). */
async function rawProperty(wb: TestWorkbench, uid: string, key: string, query = ''): Promise<string> {
  const a = await wb.call('GET', `/datastorage/nodes/${uid}/properties/${key}${query}`);
  assert.equal(a.status, 200, a.text);
  const m = new RegExp(`^\\{"data":\\{"${key.replace('.', '\\.')}":(.*)\\},"meta"`).exec(a.text);
  assert.ok(m, a.text);
  return m[1]!;
}

test('JSON number typing: an integer literal makes an IntProperty and a fraction a FloatProperty, as the real server does', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await node(wb);
    // A client that sends 1 for the float opacity is not heard: MITK's PropertyList::SetProperty
    // keeps a property of another class than the one sent, and the call still succeeds.
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/opacity`, { body: '0.25', headers: JSON_HEADERS });
    const patch = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, {
      body: '{"opacity": 1, "level": 1.0, "exp": 2e0, "count": -3}',
      headers: JSON_HEADERS,
    });
    assert.deepEqual(patch.json.data, { failed: [], updated: ['opacity', 'level', 'exp', 'count'] });
    assert.equal(await rawProperty(wb, uid, 'opacity'), '0.25', 'the float stays');
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/fresh`, { body: '1', headers: JSON_HEADERS });
    assert.equal(await rawProperty(wb, uid, 'fresh'), '1', 'a new key takes the class the literal says');
    assert.equal(await rawProperty(wb, uid, 'level'), '1.0');
    assert.equal(await rawProperty(wb, uid, 'exp'), '2.0');
    assert.equal(await rawProperty(wb, uid, 'count'), '-3');
    // The typed form is the way to get a float from a client that cannot write 1.0.
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/opacity`, { json: { type: 'FloatProperty', value: 1 } });
    assert.equal(await rawProperty(wb, uid, 'opacity'), '1.0');
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/opacity`, { body: '0.5', headers: JSON_HEADERS });
    assert.equal(await rawProperty(wb, uid, 'opacity'), '0.5');
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/layer`, { body: '{"value": 7}', headers: JSON_HEADERS });
    assert.equal(await rawProperty(wb, uid, 'layer'), '7', '{"value": v} is unwrapped');
    // Nested literals keep their spelling too.
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/color`, {
      body: '{"type": "ColorProperty", "value": [1, 0.5, 0]}',
      headers: JSON_HEADERS,
    });
    assert.equal(await rawProperty(wb, uid, 'color'), '{"type":"ColorProperty","value":[1.0,0.5,0.0]}');
    // MITK's code reads and writes a level window as its whole state; the specification's short
    // {"level", "window"} example does not match it (mitkLevelWindow.cpp from_json) and is refused.
    const short = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/levelwindow`, {
      json: { type: 'LevelWindowProperty', value: { level: 40, window: 400 } },
    });
    assert.equal(short.status, 400);
    assert.equal(short.json.error.code, 'INVALID_REQUEST');
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/levelwindow`, {
      body: '{"type": "LevelWindowProperty", "value": {"CurrentRange": {"Min": -1024, "Max": 3071}, "CurrentSettings": {"Level": 40, "Window": 400}, "DefaultSettings": {"Level": 40, "Window": 400}, "Fixed": false, "IsFloatingImage": false}}',
      headers: JSON_HEADERS,
    });
    assert.equal(
      await rawProperty(wb, uid, 'levelwindow'),
      '{"type":"LevelWindowProperty","value":{"CurrentRange":{"Max":3071.0,"Min":-1024.0},"CurrentSettings":{"Level":40.0,"Window":400.0},"DefaultSettings":{"Level":40.0,"Window":400.0},"Fixed":false,"IsFloatingImage":false}}',
    );
    const other = { type: 'TemporoSpatialStringProperty', value: { values: [{ t: 0, z: 0, value: 'Anonymous' }] } };
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/dicom.patient`, { json: other });
    assert.deepEqual(
      (await wb.call('GET', `/datastorage/nodes/${uid}/properties/dicom.patient`)).json.data['dicom.patient'],
      other,
      'other classes are kept as sent',
    );
  });
});

test('GET properties: scopes, context, content=false (names), names=, meta; restapi.* hidden', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await node(wb, 'CT');
    await wb.call('PATCH', `/datastorage/nodes/${uid}/properties?property_scope=data`, {
      json: { modality: 'CT', shared: 'data' },
    });
    await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, { json: { shared: 'node' } });
    await wb.call('PATCH', `/datastorage/nodes/${uid}/properties?context=axial`, { json: { visible: false } });

    const all = await wb.call('GET', `/datastorage/nodes/${uid}/properties`);
    const props = all.json.data.properties;
    assert.equal(props.name, 'CT');
    assert.equal(props.visible, true);
    assert.equal(props.modality, 'CT', 'all = node and data properties');
    assert.equal(props.shared, 'node', 'the node value wins in scope all');
    assert.deepEqual(all.json.meta, {
      count: Object.keys(props).length,
      property_scope: 'all',
      context: null,
      available_contexts: [null, 'axial'],
    });

    const nodeOnly = (await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=node`)).json.data
      .properties;
    assert.equal(nodeOnly.modality, undefined);
    const dataOnly = (await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=data`)).json.data
      .properties;
    assert.deepEqual(dataOnly, { modality: 'CT', shared: 'data' });
    const axial = await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=node&context=axial`);
    assert.equal(axial.json.data.properties.visible, false, "the window's own value");
    assert.equal(axial.json.data.properties.name, 'CT', 'over the default values');
    assert.equal(axial.json.meta.context, 'axial');
    const bogusScope = await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=everything`);
    assert.equal(bogusScope.json.meta.property_scope, 'all', 'an unknown scope is ignored');

    const names = await wb.call('GET', `/datastorage/nodes/${uid}/properties?content=false`);
    assert.ok(
      Array.isArray(names.json.data.properties),
      'content=false lists names (SPEC and server; the OAS schema says object)',
    );
    assert.ok(names.json.data.properties.includes('opacity'));
    const some = await wb.call('GET', `/datastorage/nodes/${uid}/properties?names=name,opacity,missing`);
    assert.deepEqual(Object.keys(some.json.data.properties).sort(), ['name', 'opacity']);
    assert.equal(some.json.meta.count, 2);

    assert.equal((await wb.call('GET', '/datastorage/nodes/ghost/properties')).status, 404);
    const reserved = await wb.call('GET', `/datastorage/nodes/${uid}/properties/restapi.uid`);
    assert.equal(reserved.status, 404);
    assert.equal(reserved.json.error.code, 'PROPERTY_NOT_FOUND');
  });
});

test('single property: GET keyed form and meta, PUT create/replace with `replaced`, 404 and 400 cases', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await node(wb, 'CT');
    const got = await wb.call('GET', `/datastorage/nodes/${uid}/properties/visible`);
    assert.deepEqual(got.json, {
      data: { visible: true },
      meta: { node_uid: uid, property_key: 'visible', property_scope: 'all', context: null },
    });
    const missing = await wb.call('GET', `/datastorage/nodes/${uid}/properties/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, 'PROPERTY_NOT_FOUND');

    const created = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/note`, { json: 'hello' });
    assert.deepEqual(created.json, {
      data: { note: 'hello' },
      meta: { node_uid: uid, property_key: 'note', replaced: false },
    });
    const replaced = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/note`, { json: { value: 'again' } });
    assert.equal(replaced.json.meta.replaced, true);
    const renamed = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/name`, { json: 'CT_renamed' });
    assert.equal(renamed.status, 200);
    assert.equal((await wb.call('GET', `/datastorage/nodes/${uid}`)).json.data.name, 'CT_renamed');
    assert.equal((await wb.call('GET', `/datastorage/nodes/${uid}`)).json.data.path, '/CT_renamed');

    for (const body of [
      'null',
      '[1,2]',
      '{"type": "ColorProperty", "value": [1]}',
      '{"type": "IntProperty", "value": 1.5}',
      '{"a": 1}',
      '',
      '{',
    ]) {
      const bad = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/x`, { body, headers: JSON_HEADERS });
      assert.equal(bad.status, 400, body);
      assert.equal(bad.json.error.code, 'INVALID_REQUEST', body);
    }
    assert.equal(
      (await wb.call('PUT', `/datastorage/nodes/${uid}/properties/name`, { json: 5 })).status,
      400,
      'a name stays a string',
    );
    assert.equal((await wb.call('PUT', `/datastorage/nodes/${uid}/properties/restapi.uid`, { json: 'x' })).status, 400);
    assert.equal((await wb.call('PUT', `/datastorage/nodes/ghost/properties/x`, { json: 1 })).status, 404);
  });
});

test('PUT properties replaces a scope (name and restapi.* kept); PATCH merges with updated/failed', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await node(wb, 'CT');
    const put = await wb.call('PUT', `/datastorage/nodes/${uid}/properties`, {
      json: { visible: false, custom: 'x', bad: null },
    });
    assert.equal(put.status, 200);
    assert.deepEqual(put.json.data.replaced.sort(), ['custom', 'visible']);
    assert.deepEqual(put.json.data.removed.sort(), ['layer', 'opacity']);
    assert.deepEqual(put.json.meta, { node_uid: uid, property_scope: 'node', context: null });
    const now = (await wb.call('GET', `/datastorage/nodes/${uid}/properties?property_scope=node`)).json.data.properties;
    assert.deepEqual(now, { name: 'CT', visible: false, custom: 'x' });
    assert.equal(
      (await wb.call('PUT', `/datastorage/nodes/${uid}/properties`, { json: [1] })).json.error.message,
      'Request body must be a JSON object',
    );

    const patch = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, {
      json: { opacity: 0.25, color: { type: 'ColorProperty', value: [1, 0] }, 'restapi.uid': 'x' },
    });
    assert.equal(patch.status, 200, 'a partial failure is still 200');
    assert.deepEqual(patch.json.data.updated, ['opacity']);
    assert.deepEqual(
      patch.json.data.failed.map((f: { property: string; error: string }) => f.property),
      ['color', 'restapi.uid'],
    );
    assert.ok(patch.json.data.failed.every((f: { error: string }) => f.error.length > 0));

    const ctx = await wb.call(
      'PATCH',
      `/datastorage/nodes/${uid}/properties?property_scope=node&context=mxn__widget0`,
      { json: { layer: 5 } },
    );
    assert.deepEqual(ctx.json.meta, { node_uid: uid, property_scope: 'node', context: 'mxn__widget0' });
    assert.equal(
      (await wb.call('GET', `/datastorage/nodes/${uid}/properties/layer?context=mxn__widget0`)).json.data.layer,
      5,
    );
    assert.equal(
      (await wb.call('GET', `/datastorage/nodes/${uid}/properties/layer`)).status,
      404,
      'the default context has no layer after the replace',
    );
    const dataCtx = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties?property_scope=data&context=axial`, {
      json: { d: 1 },
    });
    assert.equal(dataCtx.json.meta.context, null, 'context does not apply at data scope');
    assert.equal(
      (await wb.call('PATCH', `/datastorage/nodes/${uid}/properties`, { body: '{', headers: JSON_HEADERS })).status,
      400,
    );
  });
});

test('DELETE property: name is protected at node scope, deletable at data scope; a missing key is 404', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await node(wb, 'CT');
    const protectedName = await wb.call('DELETE', `/datastorage/nodes/${uid}/properties/name`);
    assert.equal(protectedName.status, 400);
    assert.equal(protectedName.json.error.code, 'PROPERTY_PROTECTED');
    assert.equal(protectedName.json.error.message, "Property 'name' cannot be deleted");
    await wb.call('PUT', `/datastorage/nodes/${uid}/properties/name?property_scope=data`, { json: 'data name' });
    assert.equal(
      (await wb.call('DELETE', `/datastorage/nodes/${uid}/properties/name?property_scope=data`)).status,
      200,
    );
    const gone = await wb.call('DELETE', `/datastorage/nodes/${uid}/properties/opacity`);
    assert.equal(gone.status, 200);
    // Both readings: SPEC and the server send only data; OAS adds a meta block, which clients may ignore.
    assert.deepEqual(gone.json.data, { deleted: 'opacity' });
    assert.deepEqual(gone.json.meta, { node_uid: uid, property_key: 'opacity', property_scope: 'node', context: null });
    // The stored server answered 500 here; 404 PROPERTY_NOT_FOUND is what OAS and clients expect of a missing key.
    const again = await wb.call('DELETE', `/datastorage/nodes/${uid}/properties/opacity`);
    assert.equal(again.status, 404);
    assert.equal(again.json.error.code, 'PROPERTY_NOT_FOUND');
    assert.equal((await wb.call('DELETE', `/datastorage/nodes/ghost/properties/opacity`)).status, 404);
  });
});

test("a segmentation gets no node colour (its labels carry colours), a grey image MITK's white; both have the MITK defaults", async () => {
  await withWorkbench({}, async (wb) => {
    const { imageBytes, smallVolume } = await import('./volumes.js');
    const headers = { 'content-type': 'application/octet-stream', 'x-mitk-data-format': 'nrrd' };
    const seg = (
      await wb.call('POST', '/datastorage/nodes?name=seg', {
        body: imageBytes('nrrd', smallVolume({ segmentation: true })),
        headers,
      })
    ).json.data.uid;
    const ct = (await wb.call('POST', '/datastorage/nodes?name=ct', { body: imageBytes(), headers })).json.data.uid;
    const segProps = (await wb.call('GET', `/datastorage/nodes/${seg}/properties`)).json.data.properties;
    assert.equal(segProps.color, undefined);
    const ctProps = (await wb.call('GET', `/datastorage/nodes/${ct}/properties`)).json.data.properties;
    assert.deepEqual(ctProps.color, { type: 'ColorProperty', value: [1, 1, 1] });
    for (const p of [segProps, ctProps]) {
      assert.equal(p.visible, true);
      assert.equal(p.opacity, 1);
      assert.equal(typeof p.layer, 'number');
    }
  });
});
