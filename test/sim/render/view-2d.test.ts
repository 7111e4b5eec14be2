import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { encodeImage, renderView, resizeImage } from '../../../src/sim/render/index.js';
import type { CameraState, RenderLayer, RgbaImage, View2D } from '../../../src/sim/render/types.js';
import { LABEL_DEFAULTS } from '../../../src/volume/segmentation.js';
import { segmentationVolume, IDENTITY, type Vec3, type Volume } from '../../../src/volume/volume.js';

/**
 * 16x16x8 volume of value 100 with one bright voxel column at patient left (+x) and anterior
 * (-y); as a segmentation, that column is a green label 1.
 */
function volume(segmentation = false): Volume {
  const dims: Vec3 = [16, 16, 8];
  const frame = new Float32Array(16 * 16 * 8).fill(segmentation ? 0 : 100);
  for (let k = 0; k < 8; k++) frame[12 + 16 * (2 + 16 * k)] = segmentation ? 1 : 1000;
  const grid = {
    dims,
    spacing: [1, 1, 1] as Vec3,
    origin: [0, 0, 0] as Vec3,
    direction: IDENTITY,
    timeStepMs: 1,
    timeOriginMs: 0,
  };
  if (!segmentation) return { ...grid, frames: [frame], componentType: 'int16', range: [100, 1000] };
  const label = { ...LABEL_DEFAULTS, value: 1, color: [0, 1, 0] as [number, number, number], opacity: 1, extra: {} };
  return segmentationVolume(grid, {
    groups: [{ name: '', labels: [label], extra: {}, frames: [frame] }],
    unlabeledLock: false,
  });
}

const layer = (v: Volume, extra: Partial<RenderLayer> = {}): RenderLayer => ({
  uid: 'n',
  volume: v,
  timeStep: 0,
  opacity: 1,
  color: null,
  levelWindow: { level: 500, window: 1000 },
  layer: 0,
  ...extra,
});

function axial(camera: Partial<CameraState> = {}): View2D {
  return {
    kind: '2d',
    width: 32,
    height: 32,
    viewDirection: 'axial',
    planeNormal: [0, 0, 1],
    planePoint: [7.5, 7.5, 4],
    camera: {
      position: [7.5, 7.5, -1000],
      focal_point: [7.5, 7.5, 4],
      view_up: [0, -1, 0],
      parallel_scale: 8,
      perspective_angle: null,
      ...camera,
    },
    crosshair: [],
    background: [0, 0, 0],
  };
}

const px = (img: RgbaImage, x: number, y: number): number[] => [
  ...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4),
];

function brightest(img: RgbaImage): [number, number] {
  let best = -1;
  let at: [number, number] = [0, 0];
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++)
      if (img.data[(y * img.width + x) * 4]! > best) [best, at] = [img.data[(y * img.width + x) * 4]!, [x, y]];
  return at;
}

test('axial: patient left on screen right, anterior at the top; grey through the level window', () => {
  const img = renderView(axial(), [layer(volume())]);
  const [x, y] = brightest(img);
  assert.ok(x > 16 && y < 16, `bright voxel at (${x}, ${y}) must be right and up`);
  // value 100 through level 500 / window 1000 -> 0.1 grey
  assert.deepEqual(px(img, 4, 24), [26, 26, 26, 255]);
});

test('halving parallel_scale doubles the size of a structure; moving the focal point pans', () => {
  const onMarker = { focal_point: [12, 2, 4] as Vec3, position: [12, 2, -1000] as Vec3 };
  const wide = renderView(axial(onMarker), [layer(volume())]);
  const zoomed = renderView(axial({ ...onMarker, parallel_scale: 4 }), [layer(volume())]);
  const count = (img: RgbaImage): number => {
    let n = 0;
    for (let i = 0; i < img.data.length; i += 4) if (img.data[i]! > 200) n++;
    return n;
  };
  assert.equal(count(zoomed), count(wide) * 4);
  const centred = renderView(axial(), [layer(volume())]);
  const panned = renderView(axial({ focal_point: [9.5, 7.5, 4], position: [9.5, 7.5, -1000] }), [layer(volume())]);
  assert.equal(
    brightest(panned)[0] - brightest(centred)[0],
    -4,
    'looking 2 mm further to patient left moves the structure 4 px to the left',
  );
});

test('labels are coloured and blended with their opacity over the image below; outside the volume is background', () => {
  const img = renderView(axial(), [layer(volume()), layer(volume(true), { opacity: 0.5 })]);
  const [x, y] = [24 + 1, 4 + 1];
  const label = px(img, x, y);
  assert.ok(label[1]! > label[0]!, `green over grey: ${label}`);
  const outside = renderView(axial({ parallel_scale: 40 }), [layer(volume())]);
  assert.deepEqual(px(outside, 0, 0), [0, 0, 0, 255]);
});

test('the crosshair draws another plane as a 1-pixel line in its colour', () => {
  const view = axial();
  view.crosshair = [{ planeNormal: [1, 0, 0], planePoint: [7.5, 0, 0], color: [0, 1, 0] }];
  const img = renderView(view, [layer(volume())]);
  const greenColumns = new Set<number>();
  for (let x = 0; x < 32; x++) if (px(img, x, 10)[1] === 255 && px(img, x, 10)[0] === 0) greenColumns.add(x);
  assert.equal(greenColumns.size, 1);
});

test('rendering and encoding are deterministic; PNG colour types follow the alpha option; resize is exact', () => {
  const a = encodeImage(renderView(axial(), [layer(volume())]), 'png');
  const b = encodeImage(renderView(axial(), [layer(volume())]), 'png');
  assert.ok(a.equals(b));
  assert.equal(a[25], 2, 'RGB');
  assert.equal(encodeImage(renderView(axial(), []), 'png', { alpha: true })[25], 6, 'RGBA');
  assert.deepEqual([...encodeImage(renderView(axial(), []), 'jpeg').subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const small = resizeImage(renderView(axial(), [layer(volume())]), 7, 5);
  const decoded = PNG.sync.read(encodeImage(small, 'png'));
  assert.deepEqual([decoded.width, decoded.height], [7, 5]);
});

test('a colour image (DICOM RGB) is drawn in its own colours, to 5-6-5 bits', () => {
  const grey = volume();
  const rgb = new Uint8Array(16 * 16 * 8 * 3);
  for (let i = 0; i < 16 * 16 * 8; i++) rgb.set(i % 16 < 8 ? [255, 0, 0] : [0, 0, 255], i * 3);
  const image = renderView(axial(), [layer({ ...grey, rgb: [rgb], componentType: 'uint8' })]);
  // Patient right (x index < 8) is on the image's left in an axial view.
  const left = [...image.data.subarray((16 * 32 + 4) * 4, (16 * 32 + 4) * 4 + 3)];
  const right = [...image.data.subarray((16 * 32 + 27) * 4, (16 * 32 + 27) * 4 + 3)];
  assert.deepEqual(left, [255, 0, 0]);
  assert.deepEqual(right, [0, 0, 255]);
});
