import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertContract } from '../../helpers/contract.js';
import { withWorkbench, type CallInit, type TestWorkbench } from '../../helpers/workbench.js';
import { imageBytes, smallVolume } from '../server/volumes.js';

/**
 * The JSON answers of the rendering endpoints, successes and errors, checked against the
 * schemas of the official contract (openapi-1.2.0.json from the shared references).
 */
async function checked(
  wb: TestWorkbench,
  method: string,
  path: string,
  status: number,
  init: CallInit = {},
): Promise<unknown> {
  const a = await wb.call(method, path, init);
  assert.equal(a.status, status, `${method} ${path}: ${a.text}`);
  assertContract(method, `/api/v1${path}`, status, a.json);
  return a.json;
}

const MODALITY_ROW = {
  version: '2.0',
  name: 'row',
  groups: { main: { select_all: true } },
  root: {
    type: 'split',
    orientation: 'horizontal',
    children: [
      { type: 'window', id: 'mxn__a', name: 'A', view_direction: 'axial', links: { selection: 'main' } },
      { type: 'window', id: 'mxn__b', view_direction: 'coronal', links: { selection: 'main' } },
    ],
  },
};

test('rendering answers match the contract: editors, windows, cameras, slices, positions, time, layout', async () => {
  await withWorkbench({}, async (wb) => {
    // An empty scene first: null bounds and zero steps are part of the contract too.
    await checked(wb, 'GET', '/rendering/selected-position', 200);
    await checked(wb, 'GET', '/rendering/editors/stdmulti/windows/axial/selected-slice', 200);

    const up = await wb.call('POST', '/datastorage/nodes?name=img', {
      body: imageBytes('nrrd', smallVolume({ dims: [8, 6, 4] })),
      headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="img.nrrd"' },
    });
    assert.equal(up.status, 201, up.text);
    assert.equal((await wb.call('POST', '/rendering/reinit', { json: {} })).status, 204);

    await checked(wb, 'GET', '/rendering/editors', 200);
    await checked(wb, 'GET', '/rendering/editors/stdmulti', 200);
    await checked(wb, 'GET', '/rendering/editors/stdmulti/windows', 200);
    for (const id of ['axial', 'sagittal', 'coronal', '3d']) {
      await checked(wb, 'GET', `/rendering/editors/stdmulti/windows/${id}`, 200);
      await checked(wb, 'GET', `/rendering/editors/stdmulti/windows/${id}/camera`, 200);
    }
    await checked(wb, 'GET', '/rendering/editors/stdmulti/windows/coronal/selected-slice', 200);
    await checked(wb, 'GET', '/rendering/selected-position', 200);
    await checked(wb, 'GET', '/rendering/selected-time', 200);

    await checked(wb, 'GET', '/rendering/editors/mxn', 200);
    await checked(wb, 'GET', '/rendering/editors/mxn/layout', 200);
    await checked(wb, 'PUT', '/rendering/editors/mxn/layout', 200, { json: MODALITY_ROW });
    await checked(wb, 'GET', '/rendering/editors/mxn/windows', 200);
    await checked(wb, 'GET', '/rendering/editors/mxn/windows/mxn__a', 200);
    await checked(wb, 'GET', '/rendering/editors/mxn/windows/mxn__b/camera', 200);
    await checked(wb, 'GET', '/rendering/editors/mxn/windows/mxn__b/selected-slice', 200);
    await checked(wb, 'GET', '/rendering/editors/mxn/windows/mxn__a/selected-position', 200);
  });
});

test('rendering errors match the contract: 400, 404, 422 and 503 bodies', async () => {
  await withWorkbench({ inactive: ['mxn'] }, async (wb) => {
    await checked(wb, 'PUT', '/rendering/selected-position', 400, { json: { position: [1, 2] } });
    await checked(wb, 'GET', '/rendering/editors/stdmulti/windows/bogus', 404);
    await checked(wb, 'GET', '/rendering/editors/stdmulti/windows/3d/selected-slice', 404);
    await checked(wb, 'PUT', '/rendering/editors/stdmulti/windows/axial/camera', 400, {
      json: { standard_view: 'anterior', position: [0, 0, 0] },
    });
    await checked(wb, 'POST', '/rendering/reinit', 404, { json: { uids: ['no-such-node'] } });
    await checked(wb, 'PUT', '/rendering/selected-time', 422, { json: { timestep: 3 } });
    await checked(wb, 'GET', '/rendering/editors/mxn', 503);
  });
});
