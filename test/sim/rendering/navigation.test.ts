import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, makeVolume, NB06, setup } from './harness.js';

test('NB06: a 96x96x32 volume at 1x1x2.5 mm reinits to axial step 16/32 at z 36.25 with the observed bounds', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  assert.equal((await call('POST', '/rendering/reinit', {})).status, 204);
  const axial = await call('GET', '/rendering/editors/stdmulti/windows/axial/selected-slice');
  assert.deepEqual(axial.json, {
    step: 16,
    position: [47.5, 47.5, 36.25],
    bounds: { steps: 32, min_position: [-0.5, -0.5, -1.25], max_position: [95.5, 95.5, 78.75] },
  });
  // The camera looks at the middle of voxel slab 15 from 900000 mm below, as observed.
  const camera = (await call('GET', '/rendering/editors/stdmulti/windows/axial/camera')).json;
  assert.deepEqual(camera.focal_point, [47.5, 47.5, 37.5]);
  assert.deepEqual(camera.position, [47.5, 47.5, -899962.5]);
  assert.deepEqual(camera.view_up, [0, -1, 0]);
  assert.equal('perspective_angle' in camera, false);
  assert.equal(camera.parallel_scale, 48);
  const sagittal = (await call('GET', '/rendering/editors/stdmulti/windows/sagittal/selected-slice')).json;
  assert.equal(sagittal.step, 48);
  assert.equal(sagittal.bounds.steps, 96);
  const position = (await call('GET', '/rendering/selected-position')).json;
  assert.deepEqual(position, {
    position: [47.5, 47.5, 38.75],
    bounds: { min_position: [-0.5, -0.5, -1.25], max_position: [95.5, 95.5, 78.75] },
  });
});

test('before any reinit and after a reinit of an empty scene, bounds are null and steps 0', async () => {
  const { store, call } = setup();
  const empty = { step: 0, position: [0, 0, 0], bounds: { steps: 0, min_position: null, max_position: null } };
  assert.deepEqual((await call('GET', '/rendering/editors/stdmulti/windows/coronal/selected-slice')).json, empty);
  assert.deepEqual((await call('GET', '/rendering/selected-position')).json, {
    position: [0, 0, 0],
    bounds: { min_position: null, max_position: null },
  });
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  store.set('ct', 'visible', { type: 'BoolProperty', value: false });
  // A global reinit only fits to visible data; nothing visible clears the geometry.
  assert.equal((await call('POST', '/rendering/reinit')).status, 204);
  assert.deepEqual((await call('GET', '/rendering/editors/stdmulti/windows/coronal/selected-slice')).json, empty);
});

test('a node-scoped reinit fits to the combined bounds of the listed nodes only', async () => {
  const { store, call } = setup();
  store.add('a', makeVolume({ dims: [10, 10, 10] }));
  store.add('b', makeVolume({ dims: [10, 10, 10], origin: [20, 0, 0], spacing: [0.5, 2, 1] }));
  store.add('far', makeVolume({ dims: [4, 4, 4], origin: [500, 500, 500] }));
  assert.equal((await call('POST', '/rendering/reinit', { uids: ['a', 'b'] })).status, 204);
  const pos = (await call('GET', '/rendering/selected-position')).json;
  assert.deepEqual(pos.bounds, { min_position: [-0.5, -1, -0.5], max_position: [24.75, 19, 9.5] });
  // Spacing per world axis is the finer of the two images: x 0.5 mm over 25.25 mm gives 51 slices.
  const sagittal = (await call('GET', '/rendering/editors/stdmulti/windows/sagittal/selected-slice')).json;
  assert.equal(sagittal.bounds.steps, 51);
  assert.equal((await call('GET', '/rendering/editors/stdmulti/windows/coronal/selected-slice')).json.bounds.steps, 20);
});

test('reinit errors: bad bodies 400, unknown node 404, no data 422 NO_DATA with body status 404, no geometry 422', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume());
  store.add('empty', null);
  store.add('broken', { ...makeVolume(), frames: [] });
  assert.match(
    errorOf(await call('POST', '/rendering/reinit', '{"uids":'), 400, 'INVALID_REQUEST').message,
    /^Invalid JSON body: /,
  );
  assert.equal(
    errorOf(await call('POST', '/rendering/reinit', { uids: [] }), 400, 'INVALID_REQUEST').message,
    "'uids' must not be empty; send no body (or {}) for a global reinit.",
  );
  errorOf(await call('POST', '/rendering/reinit', { uids: 'ct' }), 400, 'INVALID_REQUEST');
  errorOf(await call('POST', '/rendering/reinit', { uids: ['ct', 7] }), 400, 'INVALID_REQUEST');
  // Every uid is looked up before any is checked for data.
  assert.equal(
    errorOf(await call('POST', '/rendering/reinit', { uids: ['empty', 'nope'] }), 404, 'NODE_NOT_FOUND').message,
    "No node found with UID 'nope'",
  );
  const noData = errorOf(await call('POST', '/rendering/reinit', { uids: ['ct', 'empty'] }), 422, 'NO_DATA');
  assert.equal(noData.status, 404);
  assert.equal(noData.message, "Node 'empty' has no data attached.");
  assert.equal(
    errorOf(await call('POST', '/rendering/reinit', { uids: ['broken'] }), 422, 'NO_GEOMETRY').message,
    "Node 'broken' has no usable time geometry.",
  );
  // Unknown top-level keys are ignored: a global reinit.
  assert.equal((await call('POST', '/rendering/reinit', { mode: 'all' })).status, 204);
  assert.equal((await call('GET', '/rendering/editors/stdmulti/windows/axial/selected-slice')).json.bounds.steps, 4);
});

test('an image whose axes are permuted steps through world z in the axial window', async () => {
  const { store, call } = setup();
  // Index axis 0 points along world z: 20 voxels of 2 mm along z, 5 and 6 voxels in plane.
  store.add('p', makeVolume({ dims: [20, 5, 6], spacing: [2, 1, 1], direction: [0, 1, 0, 0, 0, 1, 1, 0, 0] }));
  await call('POST', '/rendering/reinit');
  const axial = (await call('GET', '/rendering/editors/stdmulti/windows/axial/selected-slice')).json;
  assert.equal(axial.bounds.steps, 20);
  assert.deepEqual(axial.bounds.min_position, [-0.5, -0.5, -1]);
  assert.deepEqual(axial.bounds.max_position, [4.5, 5.5, 39]);
});

test('slice PUT clamps, moves the crosshair along that axis and keeps the camera on the slice', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  assert.equal(
    (await call('PUT', '/rendering/editors/stdmulti/windows/axial/selected-slice', { step: 1000 })).status,
    204,
  );
  const axial = (await call('GET', '/rendering/editors/stdmulti/windows/axial/selected-slice')).json;
  assert.equal(axial.step, 31);
  // Axial steps count from the top: the last step is the lowest slab.
  assert.deepEqual(axial.position, [47.5, 47.5, -1.25]);
  assert.deepEqual((await call('GET', '/rendering/selected-position')).json.position, [47.5, 47.5, 0]);
  assert.deepEqual(
    (await call('GET', '/rendering/editors/stdmulti/windows/axial/camera')).json.focal_point,
    [47.5, 47.5, 0],
  );
  await call('PUT', '/rendering/editors/stdmulti/windows/sagittal/selected-slice', { step: 0 });
  assert.deepEqual((await call('GET', '/rendering/selected-position')).json.position, [0, 47.5, 0]);
  // The other windows did not move.
  assert.equal((await call('GET', '/rendering/editors/stdmulti/windows/coronal/selected-slice')).json.step, 48);
});

test('slice PUT body: integers only, position refused with a hint, unknown keys refused', async () => {
  const { call } = setup();
  const put = (body: unknown) => call('PUT', '/rendering/editors/stdmulti/windows/axial/selected-slice', body);
  assert.equal((await put({ step: 3 })).status, 204);
  // With nothing loaded there are no steps: any step clamps to 0.
  assert.equal((await call('GET', '/rendering/editors/stdmulti/windows/axial/selected-slice')).json.step, 0);
  for (const bad of ['{"step": 3.0}', '{"step": "3"}', '{"step": -1}', '{"step": 1e1}']) {
    assert.equal(
      errorOf(await put(bad), 400, 'INVALID_REQUEST').message,
      "'step' must be a non-negative integer.",
      bad,
    );
  }
  assert.equal(
    errorOf(await put({ position: [1, 2, 3] }), 400, 'INVALID_REQUEST').message,
    "'position' is not accepted on StdMulti selected-slice. Use PUT /rendering/selected-position to move by world coordinates.",
  );
  assert.equal(errorOf(await put({ step: 1, extra: 1 }), 400, 'INVALID_REQUEST').message, "Unknown field 'extra'.");
  assert.equal(errorOf(await put({}), 400, 'INVALID_REQUEST').message, "'step' field is required.");
  assert.equal(errorOf(await put(''), 400, 'INVALID_REQUEST').message, 'Request body is required.');
  assert.equal(errorOf(await put('[1]'), 400, 'INVALID_REQUEST').message, 'Request body must be a JSON object.');
});

test('global position PUT moves all three StdMulti slices to the nearest slice; GET returns the point', async () => {
  const { store, call } = setup();
  store.add('ct', makeVolume(NB06));
  await call('POST', '/rendering/reinit');
  assert.equal((await call('PUT', '/rendering/selected-position', { position: [10.2, 80.7, 5] })).status, 204);
  assert.deepEqual((await call('GET', '/rendering/selected-position')).json.position, [10.2, 80.7, 5]);
  const step = async (id: string) =>
    (await call('GET', `/rendering/editors/stdmulti/windows/${id}/selected-slice`)).json.step;
  assert.equal(await step('sagittal'), 10);
  assert.equal(await step('coronal'), 81);
  // z 5 is in slab 2 (3.75..6.25); counted from the top that is step 29.
  assert.equal(await step('axial'), 29);
  // Far outside, the position is kept as given. SliceNavigationHelper::SelectSliceByPoint
  // (Modules/Core mitkSliceNavigationHelper.cpp) selects no slice for a point before a stack's
  // first plane, so that navigator keeps its slice (sagittal below x 0; axial above the top,
  // where its step 0 is), and Stepper::SetPos clamps a slice past the last one (coronal).
  await call('PUT', '/rendering/selected-position', { position: [-100, 1000, 1000] });
  assert.equal(await step('sagittal'), 10);
  assert.equal(await step('coronal'), 95);
  assert.equal(await step('axial'), 29);
  await call('PUT', '/rendering/selected-position', { position: [1000, -100, -100] });
  assert.equal(await step('sagittal'), 95);
  assert.equal(await step('coronal'), 95);
  assert.equal(await step('axial'), 31);
});

test('global position: body errors first, then 503 when only MxN is open', async () => {
  const { call } = setup({ inactive: ['stdmulti'] });
  assert.equal(
    errorOf(await call('PUT', '/rendering/selected-position'), 400, 'INVALID_REQUEST').message,
    'Request body is required.',
  );
  assert.equal(
    errorOf(await call('PUT', '/rendering/selected-position', { pos: [1, 2, 3] }), 400, 'INVALID_REQUEST').message,
    "'position' field is required.",
  );
  for (const bad of [[1, 2], [1, 2, '3'], 'abc', [1, 2, 3, 4]]) {
    assert.equal(
      errorOf(await call('PUT', '/rendering/selected-position', { position: bad }), 400, 'INVALID_REQUEST').message,
      "'position' must be an array of exactly 3 numbers.",
    );
  }
  assert.match(
    errorOf(await call('PUT', '/rendering/selected-position', '{'), 400, 'INVALID_REQUEST').message,
    /^Invalid JSON body: /,
  );
  assert.equal(
    errorOf(await call('PUT', '/rendering/selected-position', { position: [1, 2, 3] }), 503, 'EDITOR_NOT_ACTIVE')
      .message,
    'StdMultiWidgetEditor is not open',
  );
  errorOf(await call('GET', '/rendering/selected-position'), 503, 'EDITOR_NOT_ACTIVE');
});

test('time: zero steps before a reinit, one step of 1 ms for a static image, 4D steps and 422s', async () => {
  const { store, call } = setup();
  assert.deepEqual((await call('GET', '/rendering/selected-time')).json, {
    timepoint_ms: 0,
    timestep: 0,
    bounds: { min_timepoint_ms: 0, max_timepoint_ms: 0, steps: 0 },
  });
  assert.equal(
    errorOf(await call('PUT', '/rendering/selected-time', { timestep: 0 }), 422, 'RENDERING_ERROR').message,
    'No time geometry is currently resolved; the time stepper reports zero steps.',
  );
  store.add('ct', makeVolume());
  await call('POST', '/rendering/reinit');
  assert.deepEqual((await call('GET', '/rendering/selected-time')).json, {
    timepoint_ms: 0,
    timestep: 0,
    bounds: { min_timepoint_ms: 0, max_timepoint_ms: 1, steps: 1 },
  });
  assert.equal(
    errorOf(await call('PUT', '/rendering/selected-time', { timestep: 1 }), 422, 'RENDERING_ERROR').message,
    'Resolved time step 1 is out of range [0, 1).',
  );
  store.add('4d', makeVolume({ timeSteps: 10, timeStepMs: 500 }));
  await call('POST', '/rendering/reinit');
  assert.equal((await call('PUT', '/rendering/selected-time', { timestep: 3 })).status, 204);
  assert.deepEqual((await call('GET', '/rendering/selected-time')).json, {
    timepoint_ms: 1500,
    timestep: 3,
    bounds: { min_timepoint_ms: 0, max_timepoint_ms: 5000, steps: 10 },
  });
  assert.equal((await call('PUT', '/rendering/selected-time', { timepoint_ms: 2600 })).status, 204);
  assert.equal((await call('GET', '/rendering/selected-time')).json.timestep, 5);
  assert.equal((await call('PUT', '/rendering/selected-time', { timepoint_ms: -50 })).status, 204);
  assert.equal((await call('GET', '/rendering/selected-time')).json.timestep, 0);
  assert.equal(
    errorOf(await call('PUT', '/rendering/selected-time', { timepoint_ms: 5000 }), 422, 'RENDERING_ERROR').message,
    'Resolved time step 10 is out of range [0, 10).',
  );
  // The refused step left the time where it was.
  assert.equal((await call('GET', '/rendering/selected-time')).json.timestep, 0);
});

test('time PUT body validation', async () => {
  const { call } = setup();
  const put = (body: unknown) => call('PUT', '/rendering/selected-time', body);
  assert.equal(
    errorOf(await put({ timestep: 1, timepoint_ms: 2 }), 400, 'INVALID_REQUEST').message,
    "Provide exactly one of 'timepoint_ms' or 'timestep', not both.",
  );
  assert.equal(
    errorOf(await put({}), 400, 'INVALID_REQUEST').message,
    "Either 'timepoint_ms' (number) or 'timestep' (integer) is required.",
  );
  for (const bad of ['{"timestep": -1}', '{"timestep": 1.0}', '{"timestep": "1"}']) {
    assert.equal(
      errorOf(await put(bad), 400, 'INVALID_REQUEST').message,
      "'timestep' must be a non-negative integer.",
      bad,
    );
  }
  assert.equal(
    errorOf(await put({ timepoint_ms: 'soon' }), 400, 'INVALID_REQUEST').message,
    "'timepoint_ms' must be a number.",
  );
  assert.equal(errorOf(await put(''), 400, 'INVALID_REQUEST').message, 'Request body is required.');
});

test('update: optional type, 204, and 400 for a bad body or type', async () => {
  const { viewer, call } = setup();
  assert.equal((await call('POST', '/rendering/update')).status, 204);
  assert.equal((await call('POST', '/rendering/update', { type: '2d' })).status, 204);
  assert.equal((await call('POST', '/rendering/update', {})).status, 204);
  assert.equal(viewer.frame, 3);
  assert.equal(
    errorOf(await call('POST', '/rendering/update', { type: 2 }), 400, 'INVALID_REQUEST').message,
    'Invalid JSON body.',
  );
  assert.equal(
    errorOf(await call('POST', '/rendering/update', '{no'), 400, 'INVALID_REQUEST').message,
    'Invalid JSON body.',
  );
  assert.equal(
    errorOf(await call('POST', '/rendering/update', { type: 'some' }), 400, 'INVALID_REQUEST').message,
    "Invalid update type 'some'. Must be 'all', '2d' or '3d'.",
  );
  assert.equal(viewer.frame, 3);
});
