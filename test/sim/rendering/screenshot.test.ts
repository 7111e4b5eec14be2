import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { errorOf, makeVolume, NB06, setup } from './harness.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngInfo(bytes: Buffer): { width: number; height: number; colorType: number } {
  assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), colorType: bytes[25]! };
}

/** A scene with the NB06 geometry and a bright block in the left-anterior corner. */
function scene(options = {}) {
  const s = setup(options);
  s.store.add('ct', makeVolume({ ...NB06, value: (i, j) => (i > 60 && j < 30 ? 1000 : 0) }));
  return s;
}

test('window grabs are 512x512 RGB PNGs; canvases are RGBA: StdMulti 2x2 with splitter, MxN 1024x768', async () => {
  const { call } = scene();
  await call('POST', '/rendering/reinit');
  for (const id of ['axial', 'sagittal', 'coronal', '3d']) {
    const shot = await call('GET', `/rendering/editors/stdmulti/windows/${id}/screenshot`);
    assert.equal(shot.status, 200);
    assert.equal(shot.headers['content-type'], 'image/png');
    assert.deepEqual(pngInfo(shot.body), { width: 512, height: 512, colorType: 2 }, id);
  }
  assert.deepEqual(pngInfo((await call('GET', '/rendering/editors/stdmulti/screenshot')).body), {
    width: 1026,
    height: 1026,
    colorType: 6,
  });
  assert.deepEqual(pngInfo((await call('GET', '/rendering/editors/mxn/screenshot')).body), {
    width: 1024,
    height: 768,
    colorType: 6,
  });
  assert.deepEqual(pngInfo((await call('GET', '/rendering/editors/mxn/windows/mxn__widget0/screenshot')).body), {
    width: 1024,
    height: 768,
    colorType: 2,
  });
});

test('the StdMulti canvas holds the four window grabs at their places, split by a dark 2-px bar', async () => {
  const { call } = scene();
  await call('POST', '/rendering/reinit');
  const canvas = PNG.sync.read((await call('GET', '/rendering/editors/stdmulti/screenshot')).body);
  const places: Array<[string, number, number]> = [
    ['axial', 0, 0],
    ['sagittal', 514, 0],
    ['coronal', 0, 514],
    ['3d', 514, 514],
  ];
  for (const [id, x0, y0] of places) {
    const win = PNG.sync.read((await call('GET', `/rendering/editors/stdmulti/windows/${id}/screenshot`)).body);
    for (const [x, y] of [
      [10, 10],
      [256, 256],
      [100, 400],
      [500, 20],
    ] as const) {
      const a = (y * 512 + x) * 4;
      const b = ((y0 + y) * 1026 + x0 + x) * 4;
      assert.deepEqual([...canvas.data.subarray(b, b + 3)], [...win.data.subarray(a, a + 3)], `${id} at ${x},${y}`);
    }
  }
  for (const [x, y] of [
    [512, 100],
    [513, 900],
    [100, 513],
  ] as const) {
    const p = (y * 1026 + x) * 4;
    assert.ok(canvas.data[p]! < 80 && canvas.data[p + 1]! < 80 && canvas.data[p + 2]! < 80, `splitter at ${x},${y}`);
  }
});

test('width/height scale the grab to exactly that size; JPEG starts with SOI', async () => {
  const { call } = scene();
  await call('POST', '/rendering/reinit');
  const small = await call(
    'GET',
    '/rendering/editors/stdmulti/windows/axial/screenshot',
    undefined,
    'width=64&height=40',
  );
  assert.deepEqual(pngInfo(small.body), { width: 64, height: 40, colorType: 2 });
  const jpeg = await call(
    'GET',
    '/rendering/editors/stdmulti/screenshot',
    undefined,
    'format=jpeg&width=100&height=100',
  );
  assert.equal(jpeg.headers['content-type'], 'image/jpeg');
  assert.deepEqual([...jpeg.body.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const app = await call('GET', '/rendering/screenshot', undefined, 'width=300&height=200');
  assert.deepEqual(pngInfo(app.body), { width: 300, height: 200, colorType: 6 });
  errorOf(await call('GET', '/rendering/screenshot', undefined, 'width=300'), 400, 'INVALID_REQUEST');
  errorOf(
    await call('GET', '/rendering/editors/stdmulti/windows/axial/screenshot', undefined, 'format=jpg'),
    400,
    'INVALID_REQUEST',
  );
  errorOf(
    await call('GET', '/rendering/editors/stdmulti/windows/nope/screenshot', undefined, 'format=jpg'),
    404,
    'RENDER_WINDOW_NOT_FOUND',
  );
});

test('the application window frames the StdMulti canvas, or the MxN canvas when StdMulti is closed', async () => {
  const { viewer, call } = scene();
  await call('POST', '/rendering/reinit');
  const withStd = pngInfo((await call('GET', '/rendering/screenshot')).body);
  assert.ok(withStd.width > 1026 && withStd.height > 1026 && withStd.colorType === 6);
  viewer.setActive('stdmulti', false);
  const withMxn = pngInfo((await call('GET', '/rendering/screenshot')).body);
  assert.ok(withMxn.width > 1024 && withMxn.width < withStd.width && withMxn.height > 768);
  errorOf(await call('GET', '/rendering/editors/stdmulti/screenshot'), 503, 'EDITOR_NOT_ACTIVE');
  viewer.setActive('mxn', false);
  assert.equal((await call('GET', '/rendering/screenshot')).status, 200);
});

test('the same state gives the same bytes; a change of state gives a new image, and going back the old one', async () => {
  const { store, call } = scene();
  await call('POST', '/rendering/reinit');
  const path = '/rendering/editors/stdmulti/windows/axial/screenshot';
  const first = (await call('GET', path)).body;
  assert.deepEqual((await call('GET', path)).body, first);
  await call('PUT', '/rendering/editors/stdmulti/windows/axial/camera', { parallel_scale: 20 });
  const zoomed = (await call('GET', path)).body;
  assert.notDeepEqual(zoomed, first);
  await call('PUT', '/rendering/editors/stdmulti/windows/axial/camera', { parallel_scale: 48 });
  assert.deepEqual((await call('GET', path)).body, first);
  // Hiding the node in this window only changes this window.
  const sagittal = (await call('GET', '/rendering/editors/stdmulti/windows/sagittal/screenshot')).body;
  store.set('ct', 'visible', { type: 'BoolProperty', value: false }, 'stdmulti.widget0');
  assert.notDeepEqual((await call('GET', path)).body, first);
  assert.deepEqual((await call('GET', '/rendering/editors/stdmulti/windows/sagittal/screenshot')).body, sagittal);
});
