import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, makeVolume, NB06, setup } from './harness.js';

const CAM = '/rendering/editors/stdmulti/windows';

test('camera GET: full state; the scalar that does not fit the kind is left out, as the real server writes it; no kind or standard_view', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  const two = (await call('GET', `${CAM}/coronal/camera`)).json;
  assert.deepEqual(Object.keys(two).sort(), ['focal_point', 'parallel_scale', 'position', 'view_up']);
  // Coronal: looking along +y, superior up, from 900000 mm in front.
  // Slab 48 of 96 along y has its middle at y 48.
  assert.deepEqual(two.focal_point, [47.5, 48, 38.75]);
  assert.deepEqual(two.position, [47.5, 48 - 900000, 38.75]);
  assert.deepEqual(two.view_up, [0, 0, 1]);
  // 80 mm tall, 96 mm wide in a square window: the width decides.
  assert.equal(two.parallel_scale, 48);
  const sag = (await call('GET', `${CAM}/sagittal/camera`)).json;
  // Sagittal looks along -x: the camera sits on the patient's left.
  assert.deepEqual(sag.position, [48 + 900000, 47.5, 38.75]);
  assert.deepEqual(sag.view_up, [0, 0, 1]);
  const three = (await call('GET', `${CAM}/3d/camera`)).json;
  assert.equal('parallel_scale' in three, false);
  assert.equal(three.perspective_angle, 30);
  assert.deepEqual(three.focal_point, [47.5, 47.5, 38.75]);
  assert.deepEqual(three.view_up, [0, 0, 1]);
  // From anterior (-y), far enough for the bounding sphere to fill 30 degrees.
  const radius = Math.hypot(96, 96, 80) / 2;
  assert.equal(three.position[0], 47.5);
  assert.ok(Math.abs(three.position[1] - (47.5 - radius / Math.sin(Math.PI / 12))) < 1e-9);
});

test('camera PUT validation: every 400 of the real server', async () => {
  const { call } = setup();
  const put = async (id: string, body: unknown) =>
    errorOf(await call('PUT', `${CAM}/${id}/camera`, body), 400, 'INVALID_REQUEST').message;
  assert.equal(await put('axial', { kind: '2d' }), "Unknown field 'kind'.");
  assert.equal(await put('axial', {}), 'Request body must set at least one camera field.');
  assert.equal(await put('axial', ''), 'Request body is required.');
  assert.equal(await put('axial', '[]'), 'Request body must be a JSON object.');
  assert.match(await put('axial', '{"position": [1,'), /^Invalid JSON body: /);
  assert.equal(await put('axial', { position: [1, 2] }), "'position' must have exactly 3 elements, got 2.");
  assert.equal(await put('axial', { focal_point: [1, '2', 3] }), "'focal_point' element 1 is not a number.");
  assert.equal(await put('axial', { view_up: 'up' }), "'view_up' must be an array of 3 numbers.");
  assert.equal(await put('axial', { parallel_scale: 0 }), "'parallel_scale' must be a number greater than 0.");
  assert.equal(await put('axial', { parallel_scale: '2' }), "'parallel_scale' must be a number greater than 0.");
  assert.equal(await put('3d', { parallel_scale: 2 }), "'parallel_scale' is not applicable to the 3D window.");
  assert.equal(
    await put('axial', { perspective_angle: 45 }),
    "'perspective_angle' is only applicable to the 3D window.",
  );
  assert.equal(
    await put('3d', { perspective_angle: 180 }),
    "'perspective_angle' must be a number in the open interval (0, 180).",
  );
  assert.equal(
    await put('3d', { perspective_angle: 0 }),
    "'perspective_angle' must be a number in the open interval (0, 180).",
  );
  assert.equal(
    await put('3d', { standard_view: 'top' }),
    "'standard_view' must be one of 'anterior', 'posterior', 'left', 'right', 'cranial', 'caudal'.",
  );
  assert.match(
    await put('3d', { standard_view: 'left', view_up: [0, 0, 1] }),
    /^'standard_view' cannot be combined with 'position', 'focal_point', or 'view_up'\./,
  );
  // MxN cells are 2D: the angle is always refused there.
  const mxn = errorOf(
    await call('PUT', '/rendering/editors/mxn/windows/mxn__widget0/camera', { perspective_angle: 40 }),
    400,
    'INVALID_REQUEST',
  );
  assert.equal(mxn.message, "'perspective_angle' is only applicable to the 3D window.");
});

test('camera PUT applies the given fields only, to that window only, without range checks', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  const before = (await call('GET', `${CAM}/axial/camera`)).json;
  const sagBefore = (await call('GET', `${CAM}/sagittal/camera`)).json;
  const sliceBefore = (await call('GET', `${CAM}/sagittal/selected-slice`)).json;
  assert.equal(
    (await call('PUT', `${CAM}/axial/camera`, { parallel_scale: 17.852700490998362, focal_point: [1e6, -3, 2] }))
      .status,
    204,
  );
  const after = (await call('GET', `${CAM}/axial/camera`)).json;
  assert.deepEqual(after, { ...before, parallel_scale: 17.852700490998362, focal_point: [1e6, -3, 2] });
  assert.deepEqual((await call('GET', `${CAM}/sagittal/camera`)).json, sagBefore);
  assert.deepEqual((await call('GET', `${CAM}/sagittal/selected-slice`)).json, sliceBefore);
  await call('PUT', `${CAM}/3d/camera`, { perspective_angle: 45 });
  assert.equal((await call('GET', `${CAM}/3d/camera`)).json.perspective_angle, 45);
});

test('3D standard views look at the centre from their side; scalars given with them apply afterwards', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  const centre = [47.5, 47.5, 38.75];
  const expectations: Array<[string, number, number, number[]]> = [
    // [view, axis of the offset, its sign, view_up]
    ['anterior', 1, -1, [0, 0, 1]],
    ['posterior', 1, 1, [0, 0, 1]],
    ['left', 0, 1, [0, 0, 1]],
    ['right', 0, -1, [0, 0, 1]],
    ['cranial', 2, 1, [0, -1, 0]],
    ['caudal', 2, -1, [0, -1, 0]],
  ];
  for (const [view, axis, sign, up] of expectations) {
    assert.equal((await call('PUT', `${CAM}/3d/camera`, { standard_view: view, perspective_angle: 20 })).status, 204);
    const c = (await call('GET', `${CAM}/3d/camera`)).json;
    assert.deepEqual(c.focal_point, centre, view);
    assert.deepEqual(c.view_up, up, view);
    assert.equal(c.perspective_angle, 20);
    const offset = [0, 1, 2].map((a) => c.position[a] - centre[a]!);
    assert.ok(Math.sign(offset[axis]!) === sign && offset.every((o, a) => a === axis || o === 0), `${view}: ${offset}`);
  }
});

test('a standard view on a 2D window re-fits it to its own plane (MITK keeps 2D cameras on the slice)', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  const fitted = (await call('GET', `${CAM}/axial/camera`)).json;
  await call('PUT', `${CAM}/axial/camera`, { focal_point: [0, 0, 37.5], position: [0, 0, -5], parallel_scale: 3 });
  assert.equal((await call('PUT', `${CAM}/axial/camera`, { standard_view: 'left', parallel_scale: 60 })).status, 204);
  assert.deepEqual((await call('GET', `${CAM}/axial/camera`)).json, { ...fitted, parallel_scale: 60 });
});

test('reinit resets cameras that were moved', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  const fitted = (await call('GET', `${CAM}/3d/camera`)).json;
  await call('PUT', `${CAM}/3d/camera`, { standard_view: 'caudal', perspective_angle: 70 });
  await call('POST', '/rendering/reinit', { uids: ['ct'] });
  assert.deepEqual((await call('GET', `${CAM}/3d/camera`)).json, fitted);
});
