import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, makeVolume, NB06, setup } from './harness.js';
import { cell, MODALITY_GRID } from './layouts.js';

const LAYOUT = '/rendering/editors/mxn/layout';

test('a fresh MxN editor has one axial cell mxn__widget0 in group main', async () => {
  const { call } = setup();
  assert.deepEqual((await call('GET', LAYOUT)).json, {
    version: '2.0',
    groups: { main: { select_all: true } },
    root: {
      type: 'split',
      orientation: 'horizontal',
      children: [{ ...cell('mxn__widget0', 'axial', 'main'), size: 1024 }],
    },
  });
});

test('PUT of the 2x3 grid answers 200 with the live layout: pixel sizes, applied name, strict groups, pre-order cells', async () => {
  const { call } = setup();
  const put = await call('PUT', LAYOUT, MODALITY_GRID);
  assert.equal(put.status, 200);
  const rows = put.json.root.children;
  // 768 px high minus one 2-px splitter, in two; 1024 px wide minus two splitters, in three.
  assert.deepEqual(
    rows.map((r: { size: number }) => r.size),
    [383, 383],
  );
  assert.deepEqual(
    rows[0].children.map((c: { size: number }) => c.size),
    [340, 340, 340],
  );
  assert.equal(put.json.name, 'modality grid');
  assert.equal(put.json.version, '2.0');
  assert.deepEqual(put.json.groups, { ct: { select_all: true }, mr: { select_all: true } });
  assert.deepEqual(rows[1].children[2], cell('mxn__mr_sagittal', 'sagittal', 'mr', { name: 'MR sagittal', size: 340 }));
  assert.deepEqual((await call('GET', LAYOUT)).json, put.json);
  const ids = [
    'mxn__ct_axial',
    'mxn__ct_coronal',
    'mxn__ct_sagittal',
    'mxn__mr_axial',
    'mxn__mr_coronal',
    'mxn__mr_sagittal',
  ];
  assert.deepEqual(
    (await call('GET', '/rendering/editors/mxn/windows')).json.map((w: { id: string }) => w.id),
    ids,
  );
  assert.deepEqual((await call('GET', '/rendering/editors/mxn')).json.windows, ids);
  // The old cell is gone.
  errorOf(await call('GET', '/rendering/editors/mxn/windows/mxn__widget0'), 404, 'RENDER_WINDOW_NOT_FOUND');
});

test('weights are ratios: sizes 3,1,1 share the width 3:1:1; lazy groups are created as select_all', async () => {
  const { call } = setup();
  const doc = {
    version: '2.0',
    root: {
      type: 'split',
      orientation: 'horizontal',
      children: [cell('mxn__a', 'axial', 'x', { size: 3 }), cell('mxn__b', 'axial', 'y'), cell('mxn__c', 'axial', 'x')],
    },
  };
  const res = (await call('PUT', LAYOUT, doc)).json;
  assert.deepEqual(
    res.root.children.map((c: { size: number }) => c.size),
    [612, 204, 204],
  );
  assert.deepEqual(res.groups, { x: { select_all: true }, y: { select_all: true } });
  assert.equal('name' in res, false);
});

test('schema 3.0 is accepted and answered in 2.0 form with only the selection link', async () => {
  const { call } = setup();
  const res = await call('PUT', LAYOUT, {
    version: '3.0',
    name: 'Three Views',
    groups: { main: { select_all: true }, nav: {} },
    root: {
      type: 'split',
      orientation: 'horizontal',
      children: [
        cell('mxn__widget0', 'axial', 'main', { links: { selection: 'main', slice: { target: 'nav', offset: 1 } } }),
      ],
    },
  });
  assert.equal(res.status, 200);
  assert.equal(res.json.version, '2.0');
  assert.deepEqual(res.json.root.children[0].links, { selection: 'main' });
  const v3bad = {
    version: '3.0',
    root: {
      type: 'split',
      orientation: 'horizontal',
      children: [cell('mxn__w', 'axial', 'main', { links: { selection: 'main', time: 'main' } })],
    },
  };
  errorOf(await call('PUT', LAYOUT, v3bad), 400, 'INVALID_REQUEST');
});

test('documents refused before teardown keep the old layout', async () => {
  const { call } = setup();
  await call('PUT', LAYOUT, MODALITY_GRID);
  const kept = (await call('GET', LAYOUT)).json;
  const root = (children: unknown[]) => ({ type: 'split', orientation: 'horizontal', children });
  const cases: Array<[unknown, string]> = [
    ['[1]', 'Layout document must be a JSON object.'],
    [{ root: root([cell('mxn__a', 'axial', 'm')]) }, "Layout document has no 'version' string."],
    [
      { version: '4.0', root: root([cell('mxn__a', 'axial', 'm')]) },
      "Layout document version is '4.0'; only '2.0' and '3.0' are supported.",
    ],
    [{ version: '2.0' }, "Layout document has no 'root' object."],
    [
      { version: '2.0', root: root([cell('a__a', 'axial', 'm')]) },
      "Window id 'a__a' does not start with this editor's required prefix 'mxn__' (ids are '<editor name>__<bare id>').",
    ],
    [
      { version: '2.0', root: root([cell('mxn__a', 'axial', 'm'), cell('mxn__a', 'axial', 'm')]) },
      "Layout document contains duplicate window id 'mxn__a'.",
    ],
    [
      { version: '2.0', root: root([{ type: 'pane' }]) },
      "Unknown layout node type 'pane' (expected 'split' or 'window').",
    ],
    [{ version: '2.0', root: root([]) }, "Split node has no non-empty 'children' array."],
    [
      { version: '2.0', root: { type: 'split', orientation: 'diagonal', children: [cell('mxn__a', 'axial', 'm')] } },
      "Split node has no valid 'orientation' (expected 'horizontal' or 'vertical').",
    ],
    [
      { version: '2.0', root: root([cell('mxn__a', 'axial', 'm', { name: '' })]) },
      "Window 'mxn__a' has an invalid 'name' (a non-empty string; omit it instead of an empty one).",
    ],
    [
      { version: '2.0', root: root([{ type: 'window', id: 'mxn__a', links: { selection: 'm' } }]) },
      "Window 'mxn__a' has no 'view_direction' string.",
    ],
    [
      { version: '2.0', root: root([{ type: 'window', id: 'mxn__a', view_direction: 'axial' }]) },
      "Window 'mxn__a' has no 'links' object.",
    ],
    [
      { version: '2.0', groups: { a: { select_all: true } }, root: root([cell('mxn__a', 'axial', 'b')]) },
      "Layout references group 'b' which is not declared in the 'groups' dict.",
    ],
    [
      { version: '2.0', groups: { m: { select_all: 'yes' } }, root: root([cell('mxn__a', 'axial', 'm')]) },
      "Layout document JSON error: 'select_all' of group 'm' must be a boolean.",
    ],
    // A bad cell late in the document is found before an unknown view direction early on.
    [
      {
        version: '2.0',
        root: root([
          cell('mxn__a', 'oblique', 'm'),
          { type: 'window', id: 'mxn__b', view_direction: 'axial', links: {} },
        ]),
      },
      "Window 'mxn__b' has no 'links.selection' string.",
    ],
  ];
  for (const [doc, message] of cases) {
    assert.equal(
      errorOf(await call('PUT', LAYOUT, doc), 400, 'INVALID_REQUEST').message,
      `Layout document rejected: ${message}`,
    );
    assert.deepEqual((await call('GET', LAYOUT)).json, kept);
  }
  assert.equal(
    errorOf(await call('PUT', LAYOUT), 400, 'INVALID_REQUEST').message,
    "Request body must be an MxN layout document (a JSON object with 'version' and 'root').",
  );
  assert.match(
    errorOf(await call('PUT', LAYOUT, '{"version":'), 400, 'INVALID_REQUEST').message,
    /^Invalid JSON body: /,
  );
  assert.deepEqual((await call('GET', LAYOUT)).json, kept);
});

test('failures after teardown (unknown view_direction, size < 1) roll back to the single default cell', async () => {
  const { call } = setup();
  const fallback = (await call('GET', LAYOUT)).json;
  const root = (children: unknown[]) => ({ type: 'split', orientation: 'horizontal', children });
  for (const [doc, message] of [
    [
      { version: '2.0', root: root([cell('mxn__a', 'oblique', 'm')]) },
      "Unknown view_direction 'oblique' (expected 'axial', 'sagittal', 'coronal', or 'original').",
    ],
    [
      { version: '2.0', root: root([cell('mxn__a', 'axial', 'm', { size: 0 })]) },
      "Layout child has invalid 'size' 0; size must be >= 1.",
    ],
  ] as const) {
    await call('PUT', LAYOUT, MODALITY_GRID);
    assert.equal(
      errorOf(await call('PUT', LAYOUT, doc), 400, 'INVALID_REQUEST').message,
      `Layout document rejected: ${message}`,
    );
    assert.deepEqual((await call('GET', LAYOUT)).json, fallback);
    assert.deepEqual((await call('GET', '/rendering/editors/mxn')).json.windows, ['mxn__widget0']);
  }
});

test('a layout PUT gives fresh cells: cameras and slices fitted anew, even for a reused id', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  const base = '/rendering/editors/mxn/windows/mxn__widget0';
  const fresh = (await call('GET', `${base}/camera`)).json;
  const freshSlice = (await call('GET', `${base}/selected-slice`)).json;
  await call('PUT', `${base}/camera`, { parallel_scale: 5 });
  await call('PUT', `${base}/selected-slice`, { step: 2 });
  await call('PUT', LAYOUT, (await call('GET', LAYOUT)).json);
  assert.deepEqual((await call('GET', `${base}/camera`)).json, fresh);
  assert.deepEqual((await call('GET', `${base}/selected-slice`)).json, freshSlice);
  // A single 1024x768 cell: the 96 mm of height decide (half of it), not the 96 mm of width.
  assert.equal(fresh.parallel_scale, 48);
});

test('MxN cells have their own positions: per-cell PUT snaps to the slice, the global PUT does not move cells', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  await call('PUT', LAYOUT, MODALITY_GRID);
  const w = '/rendering/editors/mxn/windows';
  assert.deepEqual((await call('GET', `${w}/mxn__ct_axial/selected-position`)).json, {
    position: [47.5, 47.5, 38.75],
    bounds: { min_position: [-0.5, -0.5, -1.25], max_position: [95.5, 95.5, 78.75] },
  });
  assert.equal((await call('PUT', `${w}/mxn__ct_axial/selected-position`, { position: [10, 20, 30] })).status, 204);
  // z 30 lies in slab 12 (28.75..31.25): the cell shows its middle, 30; axial counts from the top.
  assert.deepEqual((await call('GET', `${w}/mxn__ct_axial/selected-position`)).json.position, [10, 20, 30]);
  assert.equal((await call('GET', `${w}/mxn__ct_axial/selected-slice`)).json.step, 19);
  await call('PUT', `${w}/mxn__ct_axial/selected-position`, { position: [10, 20, 31] });
  assert.deepEqual((await call('GET', `${w}/mxn__ct_axial/selected-position`)).json.position, [10, 20, 30]);
  // Other cells and the StdMulti crosshair did not move.
  assert.deepEqual((await call('GET', `${w}/mxn__mr_axial/selected-position`)).json.position, [47.5, 47.5, 38.75]);
  await call('PUT', '/rendering/selected-position', { position: [1, 2, 3] });
  assert.deepEqual((await call('GET', `${w}/mxn__mr_axial/selected-position`)).json.position, [47.5, 47.5, 38.75]);
  // A cell's slice PUT moves its own position along its axis.
  await call('PUT', `${w}/mxn__ct_coronal/selected-slice`, { step: 3 });
  assert.deepEqual((await call('GET', `${w}/mxn__ct_coronal/selected-position`)).json.position, [47.5, 3, 38.75]);
  const hint = errorOf(
    await call('PUT', `${w}/mxn__ct_coronal/selected-slice`, { position: [1, 2, 3] }),
    400,
    'INVALID_REQUEST',
  ).message;
  assert.match(hint, /mxn__ct_coronal\/selected-position/);
  assert.match(hint, /PUT \/rendering\/selected-position/);
});

test('the global crosshair works with MxN closed and fails with only MxN open', async () => {
  const { call } = setup({ inactive: ['mxn'] });
  assert.equal((await call('GET', '/rendering/selected-position')).status, 200);
  errorOf(await call('PUT', LAYOUT, MODALITY_GRID), 503, 'EDITOR_NOT_ACTIVE');
  // The body is checked before the editor.
  errorOf(await call('PUT', LAYOUT, ''), 400, 'INVALID_REQUEST');
});
