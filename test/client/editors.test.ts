import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import {
  connect,
  layoutCellIds,
  WorkbenchApiError,
  WorkbenchUsageError,
  type LayoutDocument,
  type WorkbenchClient,
} from '../../src/client/index.js';
import { envelope, problem, ScriptedServer, type RecordedRequest } from '../helpers/scripted-server.js';
import { captureBytes } from '../helpers/captures.js';

let srv: ScriptedServer;
let wb: WorkbenchClient;
before(async () => {
  srv = await ScriptedServer.start();
  wb = connect({ url: srv.url });
});
after(async () => {
  await wb.close();
  await srv.close();
});
beforeEach(() => srv.reset());

const text = (r: RecordedRequest): string => r.body.toString('utf8');
const usage = (code: string) => (e: unknown) => e instanceof WorkbenchUsageError && e.code === code;
const CAMERA_2D = {
  focal_point: [47.5, 47.5, 37.5],
  parallel_scale: 35.7,
  position: [47.5, 47.5, -899962.5],
  view_up: [0, -1, 0],
};

test('editor list and info; an editor that is not open reads as inactive with no windows', async () => {
  srv.on('GET', '/api/v1/rendering/editors', {
    json: [
      { alias: 'stdmulti', plugin_id: 'org.mitk.editors.stdmultiwidget', active: true },
      { alias: 'mxn', plugin_id: 'org.mitk.editors.mxnmultiwidget', active: false },
    ],
  });
  assert.deepEqual(
    (await wb.editors.list()).map((e) => [e.alias, e.active]),
    [
      ['stdmulti', true],
      ['mxn', false],
    ],
  );
  srv.on('GET', '/api/v1/rendering/editors/stdmulti', {
    json: {
      alias: 'stdmulti',
      plugin_id: 'org.mitk.editors.stdmultiwidget',
      active: true,
      windows: ['axial', 'sagittal', 'coronal', '3d'],
    },
  });
  assert.deepEqual((await wb.stdmulti.info()).windows, ['axial', 'sagittal', 'coronal', '3d']);
  srv.on('GET', '/api/v1/rendering/editors/mxn', problem(503, 'EDITOR_NOT_ACTIVE', 'MxNMultiWidgetEditor is not open'));
  assert.deepEqual(await wb.mxn.info(), {
    alias: 'mxn',
    plugin_id: 'org.mitk.editors.mxnmultiwidget',
    active: false,
    windows: [],
  });
  srv.on('GET', '/api/v1/rendering/editors/mxn', problem(503, 'RENDER_WINDOW_NOT_AVAILABLE', 'no bridge'));
  await assert.rejects(
    wb.mxn.info(),
    (e: unknown) => e instanceof WorkbenchApiError && e.code === 'RENDER_WINDOW_NOT_AVAILABLE',
  );
});

test('window lists keep server order; the 3D entry has no view_direction; MxN cells carry display_name and links', async () => {
  srv.on('GET', '/api/v1/rendering/editors/stdmulti/windows', {
    json: [
      { id: 'axial', kind: '2d', view_direction: 'axial' },
      { id: '3d', kind: '3d' },
      { id: 'coronal', kind: '2d', view_direction: 'coronal' },
    ],
  });
  assert.deepEqual(await wb.stdmulti.windows(), [
    { id: 'axial', kind: '2d', view_direction: 'axial' },
    { id: '3d', kind: '3d' },
    { id: 'coronal', kind: '2d', view_direction: 'coronal' },
  ]);
  srv.on('GET', '/api/v1/rendering/editors/mxn/windows', {
    json: [
      { id: 'mxn__b', kind: '2d', view_direction: 'sagittal', name: 'B', links: { selection: 'main' } },
      { id: 'mxn__a', kind: '2d', view_direction: 'axial', links: { selection: 'g2' } },
    ],
  });
  const cells = await wb.mxn.windows();
  assert.deepEqual(cells, [
    { id: 'mxn__b', kind: '2d', view_direction: 'sagittal', display_name: 'B', links: { selection: 'main' } },
    { id: 'mxn__a', kind: '2d', view_direction: 'axial', display_name: null, links: { selection: 'g2' } },
  ]);
  assert.deepEqual(
    (await wb.mxn.cells()).map((c) => c.id),
    ['mxn__b', 'mxn__a'],
  );
});

test('window summaries: StdMulti (3D omits view_direction, or sends null) and MxN cells', async () => {
  srv.on('GET', '/api/v1/rendering/editors/stdmulti/windows/3d', {
    json: { has_camera: true, has_selected_slice: false, id: '3d', kind: '3d' },
  });
  assert.deepEqual(await wb.stdmulti.threeD.summary(), {
    id: '3d',
    kind: '3d',
    has_camera: true,
    has_selected_slice: false,
  });
  srv.on('GET', '/api/v1/rendering/editors/stdmulti/windows/3d', {
    json: { has_camera: true, has_selected_slice: false, id: '3d', kind: '3d', view_direction: null },
  });
  assert.equal('view_direction' in (await wb.stdmulti.threeD.summary()), false);
  srv.on('GET', '/api/v1/rendering/editors/mxn/windows/mxn__ct_axial', {
    json: {
      id: 'mxn__ct_axial',
      kind: '2d',
      view_direction: 'axial',
      name: 'CT axial',
      links: { selection: 'ct' },
      has_camera: true,
      has_selected_slice: true,
      has_selected_position: true,
    },
  });
  assert.deepEqual(await wb.mxn.window('mxn__ct_axial').summary(), {
    id: 'mxn__ct_axial',
    kind: '2d',
    view_direction: 'axial',
    has_camera: true,
    has_selected_slice: true,
    display_name: 'CT axial',
    links: { selection: 'ct' },
    has_selected_position: true,
  });
});

test('window ids are checked: the four StdMulti ids, the MxN <editor>__<name> pattern', () => {
  assert.throws(() => wb.stdmulti.window('stdmulti.widget0' as never), usage('INVALID_WINDOW_ID'));
  for (const bad of ['widget0', 'mxn_widget0', '0mxn__a', 'mxn__', 'mxn__a/b'])
    assert.throws(() => wb.mxn.window(bad), usage('INVALID_WINDOW_ID'), bad);
  assert.equal(wb.mxn.window('mxn__a.b-c_d').id, 'mxn__a.b-c_d');
});

test('camera get (null for the scalar that does not apply) and partial put with float bodies', async () => {
  srv.on('GET', '/api/v1/rendering/editors/stdmulti/windows/axial/camera', { json: CAMERA_2D });
  assert.deepEqual(await wb.stdmulti.axial.camera(), {
    position: [47.5, 47.5, -899962.5],
    focal_point: [47.5, 47.5, 37.5],
    view_up: [0, -1, 0],
    parallel_scale: 35.7,
    perspective_angle: null,
  });
  srv.on('PUT', '/api/v1/rendering/editors/stdmulti/windows/axial/camera', { status: 204 });
  await wb.stdmulti.axial.setCamera({ focal_point: [1, 2, 3], parallel_scale: 20 });
  assert.equal(text(srv.last()), '{"focal_point":[1.0,2.0,3.0],"parallel_scale":20.0}');
  srv.on('PUT', '/api/v1/rendering/editors/stdmulti/windows/3d/camera', { status: 204 });
  await wb.stdmulti.threeD.setCamera({ standard_view: 'anterior', perspective_angle: 30 });
  assert.equal(text(srv.last()), '{"standard_view":"anterior","perspective_angle":30.0}');
  srv.on('PUT', '/api/v1/rendering/editors/mxn/windows/mxn__a/camera', { status: 204 });
  await wb.mxn.window('mxn__a').setCamera({ standard_view: 'left', parallel_scale: 5 });
  assert.equal(srv.last().path, '/api/v1/rendering/editors/mxn/windows/mxn__a/camera');
});

test('camera puts the server would answer 400 are refused with the same meaning, before sending', async () => {
  const axial = wb.stdmulti.axial;
  const threeD = wb.stdmulti.threeD;
  const cell = wb.mxn.window('mxn__a');
  await assert.rejects(axial.setCamera({ standard_view: 'anterior', position: [1, 2, 3] }), usage('CAMERA_CONFLICT'));
  await assert.rejects(threeD.setCamera({ standard_view: 'caudal', view_up: [0, 0, 1] }), usage('CAMERA_CONFLICT'));
  await assert.rejects(axial.setCamera({ perspective_angle: 30 }), usage('NOT_APPLICABLE'));
  await assert.rejects(cell.setCamera({ perspective_angle: 30 }), usage('NOT_APPLICABLE'));
  await assert.rejects(threeD.setCamera({ parallel_scale: 10 }), usage('NOT_APPLICABLE'));
  await assert.rejects(axial.setCamera({}), usage('EMPTY_PATCH'));
  await assert.rejects(axial.setCamera({ position: undefined }), usage('EMPTY_PATCH'));
  await assert.rejects(axial.setCamera({ kind: '2d' } as never), usage('INVALID_ARGUMENT'));
  await assert.rejects(axial.setCamera({ parallel_scale: 0 }), usage('INVALID_ARGUMENT'));
  await assert.rejects(threeD.setCamera({ perspective_angle: 180 }), usage('INVALID_ARGUMENT'));
  await assert.rejects(axial.setCamera({ position: [1, 2] as never }), usage('INVALID_ARGUMENT'));
  await assert.rejects(axial.setCamera({ standard_view: 'top' as never }), usage('INVALID_ARGUMENT'));
  assert.equal(srv.requests.length, 0);
});

test('selected slice get/put on 2D windows; the StdMulti 3D window has none', async () => {
  const body = {
    step: 16,
    position: [47.5, 47.5, 36.25],
    bounds: { steps: 32, min_position: [-0.5, -0.5, -1.25], max_position: [95.5, 95.5, 78.75] },
  };
  srv.on('GET', '/api/v1/rendering/editors/stdmulti/windows/sagittal/selected-slice', { json: body });
  assert.deepEqual(await wb.stdmulti.sagittal.selectedSlice(), body);
  srv.on('PUT', '/api/v1/rendering/editors/mxn/windows/mxn__a/selected-slice', { status: 204 });
  await wb.mxn.window('mxn__a').setSelectedSlice(40);
  assert.equal(text(srv.last()), '{"step":40}');
  await assert.rejects(wb.stdmulti.threeD.selectedSlice(), usage('NOT_APPLICABLE'));
  await assert.rejects(wb.stdmulti.threeD.setSelectedSlice(1), usage('NOT_APPLICABLE'));
  await assert.rejects(wb.stdmulti.axial.setSelectedSlice(-1), usage('INVALID_ARGUMENT'));
  await assert.rejects(wb.stdmulti.axial.setSelectedSlice(2.5), usage('INVALID_ARGUMENT'));
  assert.equal(srv.requests.length, 2);
});

test('per-window node visibility and layer: node scope, renderer name (StdMulti) or cell id (MxN) as context', async () => {
  srv.on('PATCH', '/api/v1/datastorage/nodes/n1/properties', envelope({ updated: ['visible'], failed: [] }));
  await wb.stdmulti.axial.setNodeVisible('n1', false);
  assert.equal(srv.last().rawQuery, 'property_scope=node&context=stdmulti.widget0');
  assert.equal(text(srv.last()), '{"visible":false}');
  await wb.stdmulti.threeD.setNodeLayer('n1', 5);
  assert.equal(srv.last().rawQuery, 'property_scope=node&context=stdmulti.widget3');
  assert.equal(text(srv.last()), '{"layer":5}');
  await wb.mxn.window('mxn__ct_axial').setNodeVisible('n1', true);
  assert.equal(srv.last().rawQuery, 'property_scope=node&context=mxn__ct_axial');
  srv.on('GET', '/api/v1/datastorage/nodes/n1/properties/visible', envelope({ visible: false }));
  srv.on('GET', '/api/v1/datastorage/nodes/n1/properties/layer', envelope({ layer: 2 }));
  assert.equal(await wb.stdmulti.coronal.nodeVisible('n1'), false);
  assert.equal(srv.last().rawQuery, 'property_scope=node&context=stdmulti.widget2');
  assert.equal(await wb.mxn.window('mxn__b').nodeLayer('n1'), 2);
  assert.equal(srv.last().rawQuery, 'property_scope=node&context=mxn__b');
  await assert.rejects(wb.stdmulti.axial.setNodeLayer('n1', 1.5), usage('INVALID_ARGUMENT'));
});

test('MxN cell selected position: get and put of exactly three numbers', async () => {
  const cell = wb.mxn.window('mxn__a');
  srv.on('GET', '/api/v1/rendering/editors/mxn/windows/mxn__a/selected-position', {
    json: { position: [1, 2, 3], bounds: { min_position: null, max_position: null } },
  });
  assert.deepEqual(await cell.selectedPosition(), {
    position: [1, 2, 3],
    bounds: { min_position: null, max_position: null },
  });
  srv.on('PUT', '/api/v1/rendering/editors/mxn/windows/mxn__a/selected-position', { status: 204 });
  await cell.setSelectedPosition([10, 20, 30]);
  assert.equal(text(srv.last()), '{"position":[10.0,20.0,30.0]}');
  await assert.rejects(cell.setSelectedPosition([1, 2] as never), usage('INVALID_ARGUMENT'));
});

test('editor and window screenshots', async () => {
  const png = { headers: { 'content-type': 'image/png' }, body: captureBytes('png') };
  const jpeg = { headers: { 'content-type': 'image/jpeg' }, body: captureBytes('jpeg') };
  srv.on('GET', '/api/v1/rendering/editors/mxn/screenshot', png);
  srv.on('GET', '/api/v1/rendering/editors/stdmulti/windows/axial/screenshot', png);
  srv.on('GET', '/api/v1/rendering/editors/mxn/windows/mxn__a/screenshot', jpeg);
  assert.equal((await wb.mxn.screenshot({ width: 10, height: 20 })).contentType, 'image/png');
  assert.equal(srv.last().rawQuery, 'format=png&width=10&height=20');
  assert.deepEqual((await wb.stdmulti.axial.screenshot()).bytes, new Uint8Array(png.body));
  assert.deepEqual((await wb.mxn.window('mxn__a').screenshot({ format: 'jpeg' })).bytes, new Uint8Array(jpeg.body));
  assert.equal(srv.last().rawQuery, 'format=jpeg');
  await assert.rejects(wb.stdmulti.axial.screenshot({ width: 10 }), usage('INVALID_ARGUMENT'));
});

const LAYOUT: LayoutDocument = {
  version: '2.0',
  name: 'two',
  groups: { main: { select_all: true } },
  root: {
    type: 'split',
    orientation: 'horizontal',
    children: [
      { type: 'window', id: 'mxn__a', name: 'A', view_direction: 'axial', links: { selection: 'main' }, size: 1 },
      {
        type: 'split',
        orientation: 'vertical',
        size: 2,
        children: [{ type: 'window', id: 'mxn__b', view_direction: 'coronal', links: { selection: 'main' } }],
      },
    ],
  },
};

test('layout get keeps a 3.0 document with unknown keys; put sends the document and returns the rebuilt one', async () => {
  const v3 = {
    version: '3.0',
    name: 'Three Views',
    groups: { main: { select_all: true, color: '#ff0000' }, nav: {} },
    root: {
      type: 'split',
      orientation: 'horizontal',
      children: [
        {
          type: 'window',
          id: 'mxn__widget0',
          view_direction: 'axial',
          links: { selection: 'main', slice: { target: 'nav', offset: 2 } },
          size: 210,
          future: 1,
        },
      ],
    },
    extra_top: true,
  };
  srv.on('GET', '/api/v1/rendering/editors/mxn/layout', { json: v3 });
  const got = await wb.mxn.layout();
  assert.deepEqual(got, v3);
  assert.deepEqual(layoutCellIds(got), ['mxn__widget0']);
  const rebuilt = { ...LAYOUT, name: 'Custom Layout' };
  srv.on('PUT', '/api/v1/rendering/editors/mxn/layout', { json: rebuilt });
  assert.deepEqual(await wb.mxn.setLayout(LAYOUT), rebuilt);
  assert.deepEqual(JSON.parse(text(srv.last())), LAYOUT);
  assert.deepEqual(layoutCellIds(LAYOUT), ['mxn__a', 'mxn__b']);
  await assert.rejects(wb.mxn.setLayout({ version: '2.0' } as never), usage('INVALID_ARGUMENT'));
});

test('after a layout PUT, cell handles obtained before are stale (STALE_WINDOW), fresh ones work', async () => {
  srv.on('GET', '/api/v1/rendering/editors/mxn/windows/mxn__a/camera', { json: CAMERA_2D });
  srv.on(
    'PUT',
    '/api/v1/rendering/editors/mxn/layout',
    { json: LAYOUT },
    problem(400, 'INVALID_REQUEST', 'Layout document rejected: size must be >= 1'),
  );
  const mxn = connect({ url: srv.url }).mxn;
  const before = mxn.window('mxn__a');
  await before.camera();
  await mxn.setLayout(LAYOUT);
  assert.equal(before.stale, true);
  for (const call of [
    () => before.camera(),
    () => before.setCamera({ parallel_scale: 2 }),
    () => before.screenshot(),
    () => before.setSelectedPosition([1, 2, 3]),
    () => before.nodeVisible('n'),
  ]) {
    await assert.rejects(call(), usage('STALE_WINDOW'));
  }
  const fresh = mxn.window('mxn__a');
  assert.equal(fresh.stale, false);
  await fresh.camera();
  // A rejected layout may already have torn the cells down, so handles go stale then too.
  await assert.rejects(
    mxn.setLayout(LAYOUT),
    (e: unknown) => e instanceof WorkbenchApiError && e.code === 'INVALID_REQUEST',
  );
  await assert.rejects(fresh.camera(), usage('STALE_WINDOW'));
  assert.equal(mxn.generation, 2);
  assert.equal(srv.requests.filter((r) => r.path.endsWith('/camera')).length, 2);
});
