import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import type { TestWorkbench } from '../../helpers/workbench.js';
import { IDENTITY, type Vec3, type Volume } from '../../../src/volume/volume.js';
import { imageBytes } from './volumes.js';

/*
 * Helpers for the display-property tests: a ramp image uploaded as a client would, and the
 * axial window pointed at it so that one screen pixel is one voxel.
 */

/** 64 × 8 × 3 voxels of 1 mm; voxel (i, j, k) holds `value(i)` (4·i by default, 0 to 252). */
export function ramp(value: (i: number) => number = (i) => 4 * i, componentType = 'int16'): Volume {
  const dims: Vec3 = [64, 8, 3];
  const frame = new Float32Array(64 * 8 * 3);
  for (let k = 0; k < 3; k++)
    for (let j = 0; j < 8; j++) for (let i = 0; i < 64; i++) frame[i + 64 * (j + 8 * k)] = value(i);
  return {
    dims,
    spacing: [1, 1, 1],
    origin: [0, 0, 0],
    direction: IDENTITY,
    frames: [frame],
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType,
    range: [Math.min(...frame), Math.max(...frame)],
  };
}

export async function upload(wb: TestWorkbench, volume: Volume, name = 'Ramp'): Promise<string> {
  const res = await wb.call('POST', `/datastorage/nodes?name=${name}`, {
    body: imageBytes('nrrd', volume),
    headers: {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${name}.nrrd"`,
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.json.data.uid;
}

/** The property as the workbench answers it. */
export async function property(wb: TestWorkbench, uid: string, key: string, query = ''): Promise<unknown> {
  const res = await wb.call('GET', `/datastorage/nodes/${uid}/properties/${encodeURIComponent(key)}${query}`);
  assert.equal(res.status, 200, res.text);
  return res.json.data[key];
}

/** Read, change CurrentSettings, write back: how a level window is set on MITK. */
export async function setLevelWindow(
  wb: TestWorkbench,
  uid: string,
  level: number,
  window: number,
  query = '',
): Promise<void> {
  const lw = (await property(wb, uid, 'levelwindow')) as { value: { CurrentSettings: unknown } };
  lw.value.CurrentSettings = { Level: level, Window: window };
  const res = await wb.call('PUT', `/datastorage/nodes/${uid}/properties/levelwindow${query}`, { json: lw });
  assert.equal(res.status, 200, res.text);
}

export async function patch(wb: TestWorkbench, uid: string, body: string, query = ''): Promise<void> {
  const res = await wb.call('PATCH', `/datastorage/nodes/${uid}/properties${query}`, {
    body,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.data.failed, []);
}

const SIZE = 64;

/**
 * The axial window, 64 pixels square at 1 mm per pixel, looking at slice k = 1 with the focal
 * point at (31.5, 3.5): screen column px shows voxel i = px, row py voxel j = py - 28. The
 * crosshair runs through x = 45 and y = 7 (column 45, row 35), away from what tests sample.
 */
export async function axial(wb: TestWorkbench, magnify = 1): Promise<(i: number, j?: number) => number[]> {
  const scale = SIZE / 2 / magnify;
  assert.equal((await wb.call('PUT', '/rendering/selected-position', { json: { position: [45, 7, 1] } })).status, 204);
  const cam = await wb.call('PUT', '/rendering/editors/stdmulti/windows/axial/camera', {
    json: { focal_point: [31.5, 3.5, 1], position: [31.5, 3.5, -500], view_up: [0, -1, 0], parallel_scale: scale },
  });
  assert.equal(cam.status, 204, cam.text);
  const shot = await wb.call(
    'GET',
    `/rendering/editors/stdmulti/windows/axial/screenshot?width=${SIZE}&height=${SIZE}`,
  );
  assert.equal(shot.status, 200, shot.text);
  const png = PNG.sync.read(shot.bytes);
  // At `magnify` pixels per millimetre, voxel centre (i, j) lies at column (i - 31.5) * m + 31.5.
  return (i, j = 4) => {
    const x = Math.floor((i - 31.5) * magnify + 32);
    const y = Math.floor((j - 3.5) * magnify + 32);
    const o = (y * png.width + x) * 4;
    return [...png.data.subarray(o, o + 3)];
  };
}
