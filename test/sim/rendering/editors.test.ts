import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, setup } from './harness.js';

test('editor list always shows both editors, stdmulti first, with live `active`', async () => {
  const { viewer, call } = setup({ inactive: ['mxn'] });
  const list = await call('GET', '/rendering/editors');
  assert.equal(list.status, 200);
  assert.equal(list.headers['content-type'], 'application/json');
  assert.deepEqual(list.json, [
    { alias: 'stdmulti', plugin_id: 'org.mitk.editors.stdmultiwidget', active: true },
    { alias: 'mxn', plugin_id: 'org.mitk.editors.mxnmultiwidget', active: false },
  ]);
  viewer.setActive('mxn', true);
  viewer.setActive('stdmulti', false);
  assert.deepEqual(
    (await call('GET', '/rendering/editors')).json.map((e: { active: boolean }) => e.active),
    [false, true],
  );
});

test('editor info: fixed StdMulti ids in contract order, MxN cell ids; 503 when closed, never active:false', async () => {
  const { viewer, call } = setup();
  assert.deepEqual((await call('GET', '/rendering/editors/stdmulti')).json, {
    alias: 'stdmulti',
    plugin_id: 'org.mitk.editors.stdmultiwidget',
    active: true,
    windows: ['axial', 'sagittal', 'coronal', '3d'],
  });
  assert.deepEqual((await call('GET', '/rendering/editors/mxn')).json, {
    alias: 'mxn',
    plugin_id: 'org.mitk.editors.mxnmultiwidget',
    active: true,
    windows: ['mxn__widget0'],
  });
  viewer.setActive('stdmulti', false);
  viewer.setActive('mxn', false);
  assert.equal(
    errorOf(await call('GET', '/rendering/editors/stdmulti'), 503, 'EDITOR_NOT_ACTIVE').message,
    'StdMultiWidgetEditor is not open',
  );
  assert.equal(
    errorOf(await call('GET', '/rendering/editors/mxn'), 503, 'EDITOR_NOT_ACTIVE').message,
    'MxNMultiWidgetEditor is not open',
  );
  const err = (await call('GET', '/rendering/editors/mxn/windows')).json.error;
  assert.deepEqual(err, {
    type: 'https://rest-api.mitk.org/errors/EDITOR_NOT_ACTIVE',
    code: 'EDITOR_NOT_ACTIVE',
    title: 'Editor Not Active',
    message: 'MxNMultiWidgetEditor is not open',
    status: 503,
    instance: '/api/v1/rendering/editors/mxn/windows',
  });
});

test('StdMulti window list and summaries; the 3D window has no view_direction key', async () => {
  const { call } = setup();
  const list = (await call('GET', '/rendering/editors/stdmulti/windows')).json;
  assert.deepEqual(list, [
    { id: 'axial', kind: '2d', view_direction: 'axial' },
    { id: 'sagittal', kind: '2d', view_direction: 'sagittal' },
    { id: 'coronal', kind: '2d', view_direction: 'coronal' },
    { id: '3d', kind: '3d' },
  ]);
  assert.deepEqual((await call('GET', '/rendering/editors/stdmulti/windows/coronal')).json, {
    id: 'coronal',
    kind: '2d',
    view_direction: 'coronal',
    has_camera: true,
    has_selected_slice: true,
  });
  const three = await call('GET', '/rendering/editors/stdmulti/windows/3d');
  assert.deepEqual(three.json, { id: '3d', kind: '3d', has_camera: true, has_selected_slice: false });
  assert.ok(!three.body.toString().includes('view_direction'));
});

test('StdMulti check order: unknown id 404 before the closed editor, 3d slice 404 UNSUPPORTED_OPERATION before the body', async () => {
  const { viewer, call } = setup({ inactive: ['stdmulti'] });
  const notFound = errorOf(
    await call('GET', '/rendering/editors/stdmulti/windows/bogus'),
    404,
    'RENDER_WINDOW_NOT_FOUND',
  );
  assert.equal(notFound.message, "No render window with id 'bogus' in the addressed editor");
  // MxN ids are not StdMulti ids, and the renderer names are no URL ids either.
  errorOf(await call('GET', '/rendering/editors/stdmulti/windows/mxn__widget0/camera'), 404, 'RENDER_WINDOW_NOT_FOUND');
  errorOf(await call('GET', '/rendering/editors/stdmulti/windows/stdmulti.widget0'), 404, 'RENDER_WINDOW_NOT_FOUND');
  const unsupported = errorOf(
    await call('PUT', '/rendering/editors/stdmulti/windows/3d/selected-slice', 'not json'),
    404,
    'UNSUPPORTED_OPERATION',
  );
  assert.equal(unsupported.message, 'selected-slice is not applicable to the 3D window.');
  errorOf(await call('GET', '/rendering/editors/stdmulti/windows/3d/selected-slice'), 404, 'UNSUPPORTED_OPERATION');
  // A bad body is 400 even with the editor closed; a good one meets the closed editor.
  errorOf(
    await call('PUT', '/rendering/editors/stdmulti/windows/axial/selected-slice', { step: -1 }),
    400,
    'INVALID_REQUEST',
  );
  errorOf(
    await call('PUT', '/rendering/editors/stdmulti/windows/axial/camera', { kind: '2d' }),
    400,
    'INVALID_REQUEST',
  );
  errorOf(
    await call('PUT', '/rendering/editors/stdmulti/windows/axial/selected-slice', { step: 1 }),
    503,
    'EDITOR_NOT_ACTIVE',
  );
  for (const path of [
    'windows',
    'windows/axial',
    'windows/3d/camera',
    'windows/axial/selected-slice',
    'screenshot',
    'windows/axial/screenshot',
  ]) {
    errorOf(await call('GET', `/rendering/editors/stdmulti/${path}`), 503, 'EDITOR_NOT_ACTIVE');
  }
  viewer.setActive('stdmulti', true);
  assert.equal((await call('GET', '/rendering/editors/stdmulti/windows/axial')).status, 200);
});

test('MxN check order: malformed id 400, then body 400, then closed editor 503, then unknown id 404', async () => {
  const { viewer, call } = setup();
  const malformed = errorOf(await call('GET', '/rendering/editors/mxn/windows/widget0'), 400, 'INVALID_REQUEST');
  assert.equal(
    malformed.message,
    "Malformed MxN window id 'widget0'. Expected pattern: <prefix>__<bare> (e.g. 'mxn__widget0').",
  );
  for (const id of ['axial', '9x__a', 'mxn__', 'mxn__a%20b', '__a']) {
    errorOf(await call('GET', `/rendering/editors/mxn/windows/${id}/camera`), 400, 'INVALID_REQUEST');
  }
  const unknown = errorOf(
    await call('GET', '/rendering/editors/mxn/windows/mxn__nope'),
    404,
    'RENDER_WINDOW_NOT_FOUND',
  );
  assert.equal(unknown.message, "No render window with id 'mxn__nope' in the addressed editor");
  // A well-formed id of another editor name is still just unknown.
  errorOf(
    await call('GET', '/rendering/editors/mxn/windows/other__widget0/selected-slice'),
    404,
    'RENDER_WINDOW_NOT_FOUND',
  );
  viewer.setActive('mxn', false);
  errorOf(await call('GET', '/rendering/editors/mxn/windows/bad'), 400, 'INVALID_REQUEST');
  errorOf(
    await call('PUT', '/rendering/editors/mxn/windows/mxn__nope/selected-slice', { step: 1.5 }),
    400,
    'INVALID_REQUEST',
  );
  errorOf(
    await call('PUT', '/rendering/editors/mxn/windows/mxn__nope/selected-position', { position: [1] }),
    400,
    'INVALID_REQUEST',
  );
  errorOf(await call('GET', '/rendering/editors/mxn/windows/mxn__nope'), 503, 'EDITOR_NOT_ACTIVE');
  errorOf(
    await call('GET', '/rendering/editors/mxn/windows/mxn__widget0/screenshot', undefined, 'format=gif'),
    400,
    'INVALID_REQUEST',
  );
  errorOf(await call('GET', '/rendering/editors/mxn/windows/mxn__widget0/screenshot'), 503, 'EDITOR_NOT_ACTIVE');
  for (const path of [
    'windows',
    'layout',
    'screenshot',
    'windows/mxn__widget0/camera',
    'windows/mxn__widget0/selected-position',
  ]) {
    errorOf(await call('GET', `/rendering/editors/mxn/${path}`), 503, 'EDITOR_NOT_ACTIVE');
  }
});

test('unknown editor aliases and unregistered methods get a bare 404 without a body', async () => {
  const { call } = setup();
  for (const [method, path] of [
    ['GET', '/rendering/editors/foo'],
    ['DELETE', '/rendering/editors/stdmulti'],
    ['POST', '/rendering/selected-position'],
    ['GET', '/rendering/editors/foo/windows'],
  ]) {
    const a = await call(method!, path!);
    assert.equal(a.status, 404);
    assert.equal(a.body.length, 0, `${method} ${path}`);
  }
});

test('MxN window list and summary: name omitted when absent, links carry only selection', async () => {
  const { call } = setup();
  assert.deepEqual((await call('GET', '/rendering/editors/mxn/windows')).json, [
    { id: 'mxn__widget0', kind: '2d', links: { selection: 'main' }, view_direction: 'axial' },
  ]);
  await call('PUT', '/rendering/editors/mxn/layout', {
    version: '3.0',
    groups: { g: { select_all: false, color: '#ff0000' }, nav: {} },
    root: {
      type: 'split',
      orientation: 'horizontal',
      children: [
        {
          type: 'window',
          id: 'mxn__a',
          name: 'Label A',
          view_direction: 'coronal',
          links: { selection: 'g', slice: 'nav' },
        },
        { type: 'window', id: 'mxn__b', view_direction: 'original', links: { selection: 'g' } },
      ],
    },
  });
  assert.deepEqual((await call('GET', '/rendering/editors/mxn/windows/mxn__a')).json, {
    id: 'mxn__a',
    name: 'Label A',
    kind: '2d',
    view_direction: 'coronal',
    links: { selection: 'g' },
    has_camera: true,
    has_selected_slice: true,
    has_selected_position: true,
  });
  const b = (await call('GET', '/rendering/editors/mxn/windows/mxn__b')).json;
  assert.equal('name' in b, false);
  assert.equal(b.view_direction, 'original');
});
