import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RenderLayer, RgbaImage, View, View2D, View3D } from '../../../src/sim/render/types.js';
import type { Renderer } from '../../../src/sim/viewer/screenshots.js';
import { makeVolume, NB06, setup } from './harness.js';
import { MODALITY_GRID } from './layouts.js';

/** Records what the viewer asks the renderer to draw; images are blank, encodings describe them. */
function recorder() {
  const views: Array<{ view: View; layers: readonly RenderLayer[] }> = [];
  const tiles: Array<{ width: number; height: number; at: Array<[number, number]> }> = [];
  const blank = (width: number, height: number): RgbaImage => ({
    width,
    height,
    data: new Uint8Array(width * height * 4),
  });
  const renderer: Renderer = {
    renderView: (view, layers) => {
      views.push({ view, layers });
      return blank(view.width, view.height);
    },
    tileCanvas: (width, height, placed) => {
      tiles.push({ width, height, at: placed.map((t) => [t.x, t.y]) });
      return blank(width, height);
    },
    frameApplication: (canvas) => blank(canvas.width + 8, canvas.height + 40),
    resizeImage: (_image, width, height) => blank(width, height),
    encodeImage: (image, format, options = {}) =>
      Buffer.from(JSON.stringify({ w: image.width, h: image.height, format, alpha: options.alpha ?? false })),
  };
  return { renderer, views, tiles };
}

function scene() {
  const rec = recorder();
  const s = setup({ renderer: rec.renderer });
  s.store.add('ct', makeVolume(NB06));
  return { ...s, ...rec };
}

const shot = async (call: ReturnType<typeof setup>['call'], path: string, query = '') =>
  JSON.parse((await call('GET', path, undefined, query)).body.toString('utf8'));

test('a StdMulti 2D window samples its slab middle and shows the other two planes in their colours', async () => {
  const { call, views } = scene();
  await call('POST', '/rendering/reinit');
  await call('GET', '/rendering/editors/stdmulti/windows/axial/screenshot');
  const view = views[0]!.view as View2D;
  assert.equal(view.kind, '2d');
  assert.equal(view.viewDirection, 'axial');
  assert.deepEqual([view.width, view.height], [512, 512]);
  assert.deepEqual(view.planeNormal, [0, 0, 1]);
  assert.deepEqual(view.planePoint, [47.5, 47.5, 37.5]);
  assert.deepEqual(view.camera, {
    perspective_angle: null,
    ...(await call('GET', '/rendering/editors/stdmulti/windows/axial/camera')).json,
  });
  assert.deepEqual(view.crosshair, [
    { planeNormal: [-1, 0, 0], planePoint: [48, 47.5, 38.75], color: [0, 1, 0] },
    { planeNormal: [0, 1, 0], planePoint: [47.5, 48, 38.75], color: [0, 0, 1] },
  ]);
  assert.deepEqual(
    views[0]!.layers.map((l) => l.uid),
    ['ct'],
  );
});

test('the 3D window shows the three StdMulti planes, clipped to the navigation bounds', async () => {
  const { call, views } = scene();
  await call('POST', '/rendering/reinit');
  await call('PUT', '/rendering/selected-position', { position: [10, 20, 30] });
  await call('GET', '/rendering/editors/stdmulti/windows/3d/screenshot');
  const view = views[0]!.view as View3D;
  assert.equal(view.kind, '3d');
  assert.deepEqual(view.bounds, { min: [-0.5, -0.5, -1.25], max: [95.5, 95.5, 78.75] });
  assert.deepEqual(
    view.planes.map((p) => [p.planeNormal, p.color]),
    [
      [
        [0, 0, 1],
        [1, 0, 0],
      ],
      [
        [-1, 0, 0],
        [0, 1, 0],
      ],
      [
        [0, 1, 0],
        [0, 0, 1],
      ],
    ],
  );
  // Each plane goes through the middle of the slab nearest to the crosshair.
  assert.deepEqual(
    view.planes.map((p) => p.planePoint),
    [
      [10, 20, 30],
      [10, 20, 30],
      [10, 20, 30],
    ],
  );
});

test('an MxN cell draws its crosshair through its own position; without geometry nothing but the cell', async () => {
  const { call, views } = scene();
  await call('GET', '/rendering/editors/mxn/windows/mxn__widget0/screenshot');
  assert.deepEqual((views[0]!.view as View2D).crosshair, []);
  await call('POST', '/rendering/reinit');
  await call('PUT', '/rendering/editors/mxn/windows/mxn__widget0/selected-position', { position: [5, 6, 7] });
  await call('GET', '/rendering/editors/mxn/windows/mxn__widget0/screenshot');
  const view = views[1]!.view as View2D;
  assert.deepEqual([view.width, view.height], [1024, 768]);
  assert.deepEqual(view.planePoint, [5, 6, 7.5]);
  assert.deepEqual(view.crosshair, [
    { planeNormal: [-1, 0, 0], planePoint: [5, 6, 7.5], color: [0, 1, 0] },
    { planeNormal: [0, 1, 0], planePoint: [5, 6, 7.5], color: [0, 0, 1] },
  ]);
});

test('no geometry yet: 3D has no planes and null bounds, 2D windows no crosshair', async () => {
  const { call, views } = scene();
  await call('GET', '/rendering/editors/stdmulti/screenshot');
  assert.equal(views.length, 4);
  assert.deepEqual((views[0]!.view as View2D).crosshair, []);
  assert.deepEqual((views[3]!.view as View3D).planes, []);
  assert.equal((views[3]!.view as View3D).bounds, null);
});

test('canvases: StdMulti 2x2 with a 2-px splitter, MxN cells at their splitter rectangles, the app frames the active editor', async () => {
  const { call, tiles, viewer } = scene();
  assert.deepEqual(await shot(call, '/rendering/editors/stdmulti/screenshot'), {
    w: 1026,
    h: 1026,
    format: 'png',
    alpha: true,
  });
  assert.deepEqual(tiles[0], {
    width: 1026,
    height: 1026,
    at: [
      [0, 0],
      [514, 0],
      [0, 514],
      [514, 514],
    ],
  });
  await call('PUT', '/rendering/editors/mxn/layout', MODALITY_GRID);
  assert.deepEqual(await shot(call, '/rendering/editors/mxn/screenshot'), {
    w: 1024,
    h: 768,
    format: 'png',
    alpha: true,
  });
  assert.deepEqual(tiles[1], {
    width: 1024,
    height: 768,
    at: [
      [0, 0],
      [342, 0],
      [684, 0],
      [0, 385],
      [342, 385],
      [684, 385],
    ],
  });
  assert.deepEqual(await shot(call, '/rendering/editors/mxn/windows/mxn__mr_coronal/screenshot'), {
    w: 340,
    h: 383,
    format: 'png',
    alpha: false,
  });
  assert.deepEqual(await shot(call, '/rendering/screenshot'), { w: 1034, h: 1066, format: 'png', alpha: true });
  viewer.setActive('stdmulti', false);
  assert.deepEqual(await shot(call, '/rendering/screenshot', 'format=jpeg'), {
    w: 1032,
    h: 808,
    format: 'jpeg',
    alpha: true,
  });
  assert.deepEqual(await shot(call, '/rendering/screenshot', 'width=20&height=10'), {
    w: 20,
    h: 10,
    format: 'png',
    alpha: true,
  });
});

test('the last image of each target is reused while its state is unchanged, and redrawn when it changes', async () => {
  const { call, store, views } = scene();
  await call('POST', '/rendering/reinit');
  const axial = '/rendering/editors/stdmulti/windows/axial/screenshot';
  await call('GET', axial);
  await call('GET', axial);
  assert.equal(views.length, 1);
  // Another size or format is another picture.
  await call('GET', axial, undefined, 'width=10&height=10');
  assert.equal(views.length, 2);
  await call('GET', axial);
  assert.equal(views.length, 3);
  // Any state the picture depends on: slices, cameras, properties, time.
  const changes: Array<() => Promise<unknown>> = [
    () => call('PUT', '/rendering/editors/stdmulti/windows/axial/selected-slice', { step: 3 }),
    () => call('PUT', '/rendering/editors/stdmulti/windows/sagittal/selected-slice', { step: 3 }),
    () => call('PUT', '/rendering/editors/stdmulti/windows/axial/camera', { parallel_scale: 3 }),
    async () => store.set('ct', 'opacity', { type: 'FloatProperty', value: 0.5 }),
    async () => store.set('ct', 'visible', { type: 'BoolProperty', value: false }, 'axial'),
  ];
  for (const change of changes) {
    const before: number = views.length;
    await change();
    await call('GET', axial);
    assert.equal(views.length, before + 1);
  }
  assert.deepEqual(views.at(-1)!.layers, []);
  // Changes elsewhere leave it cached: the 3D camera, an MxN cell, an update request.
  const before: number = views.length;
  await call('PUT', '/rendering/editors/stdmulti/windows/3d/camera', { perspective_angle: 10 });
  await call('PUT', '/rendering/editors/mxn/windows/mxn__widget0/selected-slice', { step: 1 });
  await call('POST', '/rendering/update');
  await call('GET', axial);
  assert.equal(views.length, before);
});
