import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';
import { imageBytes, smallVolume } from './volumes.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

async function create(wb: TestWorkbench, body: unknown, parent?: string): Promise<string> {
  const a = await wb.call('POST', parent ? `/datastorage/nodes/${parent}/children` : '/datastorage/nodes', {
    json: body,
  });
  assert.equal(a.status, 201, a.text);
  return a.json.data.uid;
}

test('create with JSON: the node object, its location and failed properties; defaults like MITK', async () => {
  await withWorkbench({}, async (wb) => {
    const a = await wb.call('POST', '/datastorage/nodes', {
      body: '{"name": "CT", "properties": {"custom": 3, "bad": [1, 2], "restapi.uid": "x", "visible": false}}',
      headers: JSON_HEADERS,
    });
    assert.equal(a.status, 201);
    const node = a.json.data;
    assert.deepEqual(Object.keys(node).sort(), [
      'children_count',
      'data_type',
      'name',
      'parent_uid',
      'path',
      'timestamp',
      'uid',
    ]);
    assert.equal(node.name, 'CT');
    assert.equal(node.path, '/CT');
    assert.equal(node.parent_uid, null);
    assert.equal(node.data_type, null);
    assert.equal(node.children_count, 0);
    assert.ok(Number.isInteger(node.timestamp));
    assert.equal(a.json.meta.location, `/api/v1/datastorage/nodes/${node.uid}`);
    assert.equal(a.headers.get('location'), a.json.meta.location, 'the location also in a Location header');
    assert.deepEqual(a.json.meta.failed_properties.sort(), ['bad', 'restapi.uid']);

    const props = (await wb.call('GET', `/datastorage/nodes/${node.uid}/properties`)).json.data.properties;
    assert.equal(props.visible, false, 'given properties override the defaults');
    assert.equal(props.custom, 3);
    assert.equal(props.layer, 0);
    const text = (await wb.call('GET', `/datastorage/nodes/${node.uid}/properties/opacity`)).text;
    assert.match(text, /"opacity":1\.0\b/, 'the default opacity is a FloatProperty, written with its fraction');
    assert.equal(props['restapi.uid'], undefined);

    const fromProps = await wb.call('POST', '/datastorage/nodes', { json: { properties: { name: 'FromProps' } } });
    assert.equal(fromProps.json.data.name, 'FromProps');
    const both = await wb.call('POST', '/datastorage/nodes', { json: { name: 'Field', properties: { name: 'Prop' } } });
    assert.equal(both.json.data.name, 'Field', 'the name field wins over a name property');
    const second = await create(wb, { name: 'MR' });
    assert.equal(
      (await wb.call('GET', `/datastorage/nodes/${second}/properties/layer`)).json.data.layer,
      3,
      'layer follows creation order',
    );
    assert.ok(
      (await wb.call('GET', `/datastorage/nodes/${second}`)).json.data.timestamp > node.timestamp,
      'timestamps grow',
    );
  });
});

test('create: empty JSON body, no Content-Type (empty node), other Content-Type (415), bad JSON (400)', async () => {
  await withWorkbench({}, async (wb) => {
    const empty = await wb.call('POST', '/datastorage/nodes', { headers: JSON_HEADERS, body: '' });
    assert.equal(empty.status, 201);
    assert.ok(empty.json.data.name.length > 0, 'an automatic name');
    const none = await wb.call('POST', '/datastorage/nodes');
    assert.equal(none.status, 201);
    assert.equal(none.json.data.data_type, null);
    const other = await wb.call('POST', '/datastorage/nodes', { headers: { 'content-type': 'text/plain' }, body: 'x' });
    assert.equal(other.status, 415);
    assert.equal(other.json.error.code, 'UNSUPPORTED_FORMAT');
    for (const body of ['{', '[1]', '{"name": 5}', '{"properties": []}', '{"transfer": 3}']) {
      const bad = await wb.call('POST', '/datastorage/nodes', { headers: JSON_HEADERS, body });
      assert.equal(bad.status, 400, body);
      assert.equal(bad.json.error.code, 'INVALID_REQUEST');
    }
    const mode = await wb.call('POST', '/datastorage/nodes', {
      json: { transfer: { mode: 'shared-memory', file_path: '/x.nrrd' } },
    });
    assert.equal(mode.status, 406);
    assert.equal(mode.json.error.code, 'TRANSFER_MODE_NOT_AVAILABLE');
    assert.deepEqual(mode.json.error.available_modes, ['file-reference', 'direct']);
    assert.equal((await wb.call('GET', '/datastorage/nodes')).json.meta.total_count, 2);
  });
});

test('GET one node: available_contexts lists null and the windows with values of their own', async () => {
  await withWorkbench({}, async (wb) => {
    const uid = await create(wb, { name: 'A' });
    const before = await wb.call('GET', `/datastorage/nodes/${uid}`);
    assert.deepEqual(before.json.meta, { available_contexts: [null] });
    await wb.call('PATCH', `/datastorage/nodes/${uid}/properties?property_scope=node&context=axial`, {
      json: { visible: false },
    });
    const after = await wb.call('GET', `/datastorage/nodes/${uid}`);
    assert.deepEqual(after.json.meta.available_contexts, [null, 'axial']);
    const missing = await wb.call('GET', '/datastorage/nodes/invalid-uid');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json.error, {
      type: 'https://rest-api.mitk.org/errors/NODE_NOT_FOUND',
      code: 'NODE_NOT_FOUND',
      title: 'Node Not Found',
      message: "No node found with UID 'invalid-uid'",
      status: 404,
      instance: '/api/v1/datastorage/nodes/invalid-uid',
    });
  });
});

test('listing: paging with links, hierarchy, path, parent_uid, data_type, fields and sort', async () => {
  await withWorkbench({}, async (wb) => {
    const a = await create(wb, { name: 'A' });
    const b = await create(wb, { name: 'B' }, a);
    await create(wb, { name: 'C' }, b);
    const seg = await wb.call('POST', '/datastorage/nodes?name=Seg', {
      body: imageBytes('nrrd', smallVolume({ segmentation: true })),
      headers: { 'content-type': 'application/octet-stream', 'x-mitk-data-format': 'nrrd' },
    });
    const img = await wb.call('POST', '/datastorage/nodes?name=Img', {
      body: imageBytes(),
      headers: { 'content-type': 'application/octet-stream', 'x-mitk-data-format': 'nrrd' },
    });
    assert.equal(seg.json.data.data_type, 'MultiLabelSegmentation');
    assert.equal(img.json.data.data_type, 'Image');

    const page = await wb.call('GET', '/datastorage/nodes?limit=2&offset=1&sort=name');
    assert.deepEqual(
      page.json.data.map((n: { name: string }) => n.name),
      ['B', 'C'],
    );
    assert.equal(page.json.meta.total_count, 5);
    assert.equal(page.json.meta.returned_count, 2);
    assert.equal(page.json.meta.limit, 2);
    assert.equal(page.json.meta.offset, 1);
    assert.deepEqual(page.json.meta.links, {
      prev: '/api/v1/datastorage/nodes?limit=2&sort=name&offset=0',
      next: '/api/v1/datastorage/nodes?limit=2&sort=name&offset=3',
    });
    assert.deepEqual(page.json.meta.sort, { field: 'name', ascending: true });
    assert.equal(page.json.meta.context, null);
    assert.equal(page.json.meta.property_scope, 'all');
    const first = await wb.call('GET', '/datastorage/nodes');
    assert.equal(first.json.meta.links, undefined, 'no links when everything fits');
    assert.equal(first.json.meta.filters, undefined);

    const clamp = await wb.call('GET', '/datastorage/nodes?limit=5000&offset=-3');
    assert.equal(clamp.json.meta.limit, 1000);
    assert.equal(clamp.json.meta.offset, 0);
    assert.equal(
      (await wb.call('GET', '/datastorage/nodes?limit=abc')).json.meta.limit,
      50,
      'a non-numeric limit is ignored',
    );
    assert.equal((await wb.call('GET', '/datastorage/nodes?limit=0')).json.meta.limit, 1);

    const desc = await wb.call('GET', '/datastorage/nodes?sort=-timestamp&fields=uid,name');
    assert.deepEqual(desc.json.data[0], { uid: img.json.data.uid, name: 'Img' });
    assert.deepEqual(desc.json.meta.fields, ['uid', 'name']);
    assert.equal(
      (await wb.call('GET', '/datastorage/nodes?sort=bogus')).json.meta.sort,
      undefined,
      'an unknown sort field leaves the list unsorted',
    );

    const top = await wb.call('GET', '/datastorage/nodes?hierarchy=toplevel');
    assert.deepEqual(top.json.data.map((n: { name: string }) => n.name).sort(), ['A', 'Img', 'Seg']);
    assert.deepEqual(top.json.meta.filters, { hierarchy: 'toplevel' });
    const path = await wb.call('GET', '/datastorage/nodes?path=/A/B/C');
    assert.deepEqual(
      path.json.data.map((n: { name: string }) => n.name),
      ['C'],
    );
    assert.equal(path.json.meta.path_query, '/A/B/C');
    assert.deepEqual(
      (await wb.call('GET', '/datastorage/nodes?path=/nope')).json.data,
      [],
      'a path query always gives an array',
    );
    const roots = await wb.call('GET', '/datastorage/nodes?parent_uid=null');
    assert.equal(roots.json.meta.total_count, 3);
    const underA = await wb.call('GET', `/datastorage/nodes?parent_uid=${a}`);
    assert.deepEqual(
      underA.json.data.map((n: { uid: string }) => n.uid),
      [b],
    );
    for (const t of ['Image', 'mitk::Image']) {
      assert.deepEqual(
        (await wb.call('GET', `/datastorage/nodes?data_type=${t}`)).json.data.map((n: { name: string }) => n.name),
        ['Img'],
        t,
      );
    }
    for (const t of ['MultiLabelSegmentation', 'LabelSetImage', 'mitk::LabelSetImage']) {
      assert.deepEqual(
        (await wb.call('GET', `/datastorage/nodes?data_type=${t}`)).json.data.map((n: { name: string }) => n.name),
        ['Seg'],
        t,
      );
    }
  });
});

test('property filters: exact, negation in both spellings, * anywhere and ? (SPEC 1.2), scope and context', async () => {
  await withWorkbench({}, async (wb) => {
    const names = ['CT_Scan', 'CT_Mask', 'MR_T1', 'MR_T2w'];
    const uids: Record<string, string> = {};
    for (const name of names) uids[name] = await create(wb, { name });
    await wb.call('PUT', `/datastorage/nodes/${uids.MR_T1}/properties/visible`, { json: false });
    await wb.call('PUT', `/datastorage/nodes/${uids.CT_Mask}/properties/color`, {
      json: { type: 'ColorProperty', value: [1, 0, 0] },
    });
    await wb.call('PUT', `/datastorage/nodes/${uids.CT_Scan}/properties/visible?context=axial`, { json: false });
    const list = async (q: string): Promise<string[]> => {
      const a = await wb.call('GET', `/datastorage/nodes?${q}`);
      assert.equal(a.status, 200, q);
      return a.json.data.map((n: { name: string }) => n.name).sort();
    };
    assert.deepEqual(await list('filter.name=CT_Scan'), ['CT_Scan']);
    assert.deepEqual(await list('filter.name=CT_*'), ['CT_Mask', 'CT_Scan']);
    assert.deepEqual(await list('filter.name=*T??'), ['MR_T2w'], '? is exactly one character');
    assert.deepEqual(await list('filter.name=CT?'), [], 'a pattern matches the whole value');
    assert.deepEqual(await list('filter.name=MR_T?'), ['MR_T1']);
    assert.deepEqual(await list('filter.name=*_T*'), ['MR_T1', 'MR_T2w'], 'an inner *');
    assert.deepEqual(await list('filter.name=*Mask'), ['CT_Mask']);
    assert.deepEqual(await list('filter.visible=false'), ['MR_T1']);
    assert.deepEqual(await list('filter.visible!=false'), ['CT_Mask', 'CT_Scan', 'MR_T2w']);
    assert.deepEqual(await list('filter.visible=!false'), ['CT_Mask', 'CT_Scan', 'MR_T2w']);
    assert.deepEqual(await list('filter.opacity=1.0'), names.slice().sort(), 'numbers compare in their JSON text form');
    assert.deepEqual(
      await list(`filter.color=${encodeURIComponent('{"type":"ColorProperty","value":[1.0,0.0,0.0]}')}`),
      ['CT_Mask'],
    );
    assert.deepEqual(await list('filter.visible=false&context=axial&property_scope=node'), ['CT_Scan', 'MR_T1']);
    assert.deepEqual(await list('filter.visible=false&filter.name=MR*'), ['MR_T1'], 'filters combine');
    const meta = (await wb.call('GET', '/datastorage/nodes?filter.visible!=true&property_scope=node&context=axial'))
      .json.meta;
    assert.deepEqual(meta.filters, { property_filters: [{ key: 'visible', value: 'true', negated: true }] });
    assert.equal(meta.context, 'axial');
    assert.equal(meta.property_scope, 'node');
  });
});

test('children: list with its own meta, create under a parent, 404 for an unknown parent', async () => {
  await withWorkbench({}, async (wb) => {
    const p = await create(wb, { name: 'P' });
    const c1 = await create(wb, { name: 'c1' }, p);
    await create(wb, { name: 'c2' }, p);
    const kids = await wb.call('GET', `/datastorage/nodes/${p}/children?limit=1&sort=name`);
    assert.equal(kids.status, 200);
    assert.deepEqual(
      kids.json.data.map((n: { uid: string }) => n.uid),
      [c1],
    );
    assert.equal(kids.json.meta.parent_uid, p);
    assert.equal(kids.json.meta.total_count, 2);
    assert.equal(kids.json.meta.links.next, `/api/v1/datastorage/nodes/${p}/children?limit=1&sort=name&offset=1`);
    assert.equal(kids.json.meta.context, undefined, 'the children meta does not echo context, scope, filters or sort');
    assert.equal(kids.json.meta.sort, undefined);
    const child = (await wb.call('GET', `/datastorage/nodes/${c1}`)).json.data;
    assert.equal(child.path, '/P/c1');
    assert.equal(child.parent_uid, p);
    assert.equal((await wb.call('GET', `/datastorage/nodes/${p}`)).json.data.children_count, 2);
    assert.equal((await wb.call('GET', '/datastorage/nodes/ghost/children')).status, 404);
    const orphan = await wb.call('POST', '/datastorage/nodes/ghost/children', { json: { name: 'x' } });
    assert.equal(orphan.status, 404);
    assert.equal(orphan.json.error.code, 'NODE_NOT_FOUND');
    const direct = await wb.call('POST', `/datastorage/nodes/${p}/children?name=img`, {
      body: imageBytes(),
      headers: { 'content-type': 'application/octet-stream', 'x-mitk-data-format': 'nrrd' },
    });
    assert.equal(direct.status, 201);
    assert.equal(direct.json.data.parent_uid, p);
  });
});

test('reparent: to another node, to the top level, 404 unknown parent, 409 circular, 400 bad body', async () => {
  await withWorkbench({}, async (wb) => {
    const a = await create(wb, { name: 'A' });
    const b = await create(wb, { name: 'B' }, a);
    const c = await create(wb, { name: 'C' }, b);
    const up = await wb.call('PATCH', `/datastorage/nodes/${c}`, { json: { parent_uid: null } });
    assert.equal(up.status, 200);
    assert.equal(up.json.data.parent_uid, null);
    assert.equal(up.json.data.uid, c, 'the UID survives reparenting');
    assert.equal(up.json.meta, undefined);
    const down = await wb.call('PATCH', `/datastorage/nodes/${c}`, { json: { parent_uid: a } });
    assert.equal(down.json.data.path, '/A/C');
    for (const target of [a, b]) {
      const circular = await wb.call('PATCH', `/datastorage/nodes/${a}`, {
        json: { parent_uid: target === a ? a : b },
      });
      assert.equal(circular.status, 409);
      assert.equal(circular.json.error.code, 'CIRCULAR_HIERARCHY_REFERENCE');
    }
    const unknown = await wb.call('PATCH', `/datastorage/nodes/${c}`, { json: { parent_uid: 'ghost' } });
    assert.equal(unknown.status, 404);
    assert.equal((await wb.call('PATCH', '/datastorage/nodes/ghost', { json: { parent_uid: null } })).status, 404);
    for (const body of [{ name: 'x' }, { parent_uid: 3 }, [1]]) {
      assert.equal(
        (await wb.call('PATCH', `/datastorage/nodes/${c}`, { json: body })).status,
        400,
        JSON.stringify(body),
      );
    }
  });
});

test('delete: 409 NODE_HAS_CHILDREN with children_count, recursive deletes deepest first', async () => {
  await withWorkbench({}, async (wb) => {
    const a = await create(wb, { name: 'A' });
    const b = await create(wb, { name: 'B' }, a);
    const c = await create(wb, { name: 'C' }, b);
    const d = await create(wb, { name: 'D' }, a);
    const refused = await wb.call('DELETE', `/datastorage/nodes/${a}`);
    assert.equal(refused.status, 409);
    assert.equal(refused.json.error.code, 'NODE_HAS_CHILDREN');
    assert.equal(refused.json.error.children_count, 2);
    assert.equal(refused.json.error.message, 'Node has 2 children. Use ?recursive=true to delete.');
    const leaf = await wb.call('DELETE', `/datastorage/nodes/${d}`);
    assert.deepEqual(leaf.json, { data: { deleted_uid: d } });
    const all = await wb.call('DELETE', `/datastorage/nodes/${a}?recursive=1`);
    assert.equal(all.status, 200);
    assert.deepEqual(all.json, { data: { deleted_uid: a, deleted_children: [c, b] } });
    assert.equal((await wb.call('GET', '/datastorage/nodes')).json.meta.total_count, 0);
    assert.equal((await wb.call('DELETE', `/datastorage/nodes/${a}`)).status, 404);
  });
});
