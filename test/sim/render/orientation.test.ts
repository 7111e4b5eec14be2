import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderView } from '../../../src/sim/render/index.js';
import type { RgbaImage, View2D } from '../../../src/sim/render/types.js';
import type { Mat3, Vec3 } from '../../../src/volume/volume.js';
import { distinct, layerOf, makeVolume, pixelsWhere, px, view2d } from './fixtures.js';

// Expected places are worked out by hand from the screen mapping: with a 16-pixel window,
// parallel_scale 8 (1 mm per pixel) and the focal point at mm (7.5, 7.5, ·), axial pixel
// column px shows world x = px and row py world y = py; sagittal and coronal rows show
// z = focal_z + 7.5 - py. World is LPS: +x patient left, +y posterior, +z superior.

const LEFT = 1000; // voxel (13, 8, 4): patient left of the centre
const ANTERIOR = 600; // voxel (8, 2, 4): anterior
const SUPERIOR = 200; // voxel (8, 8, 6): superior

function markers(
  direction?: Mat3,
  origin?: Vec3,
  at: (i: number, j: number, k: number) => [number, number, number] = (i, j, k) => [i, j, k],
) {
  return makeVolume({
    dims: [16, 16, 8],
    direction,
    origin,
    value: (i, j, k) => {
      const [a, b, c] = at(i, j, k);
      if (a === 13 && b === 8 && c === 4) return LEFT;
      if (a === 8 && b === 2 && c === 4) return ANTERIOR;
      if (a === 8 && b === 8 && c === 6) return SUPERIOR;
      return 0;
    },
  });
}

/**
 * The grey level of each marker through the 0..1000 window: MITK's level-window filter takes
 * entry trunc(v / 1000 * 256 + 1/2) of its 256 greys, clamped to 255.
 */
const GREY: Record<number, number> = { [LEFT]: 255, [ANTERIOR]: 154, [SUPERIOR]: 51 };

/** Where a marker value shows, by its grey level. */
function where(image: RgbaImage, value: number): Array<[number, number]> {
  const grey = GREY[value]!;
  return pixelsWhere(image, (c) => c[0] === grey && c[1] === grey && c[2] === grey);
}

const blueBackground = (v: View2D): View2D => ({ ...v, background: [0, 0, 1] });

test('axial: patient left on screen right, anterior at the top (radiological convention)', () => {
  const image = renderView(view2d('axial', [7.5, 7.5, 4]), [layerOf(markers())]);
  assert.deepEqual(where(image, LEFT), [[13, 8]]);
  assert.deepEqual(where(image, ANTERIOR), [[8, 2]]);
  assert.deepEqual(where(image, SUPERIOR), [], 'the superior marker is on another slice');
});

test('sagittal: anterior on screen left, superior at the top; outside the volume is the background', () => {
  const image = renderView(blueBackground(view2d('sagittal', [8, 7.5, 3.5])), [layerOf(markers())]);
  // Columns show y = px, rows z = 11 - py.
  assert.deepEqual(where(image, ANTERIOR), [[2, 7]]);
  assert.deepEqual(where(image, SUPERIOR), [[8, 5]]);
  assert.deepEqual(where(image, LEFT), []);
  const blueRows = distinct(
    pixelsWhere(image, (c) => c[2] === 255 && c[0] === 0),
    1,
  );
  assert.deepEqual(blueRows, [0, 1, 2, 3, 12, 13, 14, 15], 'rows above z = 7 and below z = 0 are outside the 8 slices');
});

test('coronal: patient left on screen right, superior at the top', () => {
  const image = renderView(view2d('coronal', [7.5, 8, 3.5]), [layerOf(markers())]);
  assert.deepEqual(where(image, LEFT), [[13, 7]]);
  assert.deepEqual(where(image, SUPERIOR), [[8, 5]]);
  assert.deepEqual(where(image, ANTERIOR), []);
});

test('a flipped index axis is honoured: the same anatomy lands on the same pixels', () => {
  // Index i runs to patient right: voxel i sits at x = 15 - i, so the left marker is voxel 2.
  const flipped = markers([-1, 0, 0, 0, 1, 0, 0, 0, 1], [15, 0, 0], (i, j, k) => [15 - i, j, k]);
  const image = renderView(view2d('axial', [7.5, 7.5, 4]), [layerOf(flipped)]);
  assert.deepEqual(where(image, LEFT), [[13, 8]]);
  assert.deepEqual(where(image, ANTERIOR), [[8, 2]]);
});

test('permuted index axes are honoured (index i along world y, j along world x)', () => {
  const permuted = markers([0, 1, 0, 1, 0, 0, 0, 0, 1], [0, 0, 0], (i, j, k) => [j, i, k]);
  const image = renderView(view2d('axial', [7.5, 7.5, 4]), [layerOf(permuted)]);
  assert.deepEqual(where(image, LEFT), [[13, 8]]);
  assert.deepEqual(where(image, ANTERIOR), [[8, 2]]);
});

test('spacing is honoured: a 2 mm voxel covers two 1 mm pixels, a 2.5 mm slice three rows', () => {
  const wide = makeVolume({
    dims: [16, 16, 8],
    spacing: [2, 1, 1],
    value: (i, j, k) => (i === 5 && j === 8 && k === 4 ? 1000 : 0),
  });
  // Voxel 5 spans x in [9, 11): pixel columns 9 and 10.
  assert.deepEqual(where(renderView(view2d('axial', [7.5, 7.5, 4]), [layerOf(wide)]), 1000), [
    [9, 8],
    [10, 8],
  ]);
  const thick = makeVolume({
    dims: [16, 16, 8],
    spacing: [1, 1, 2.5],
    value: (i, j, k) => (i === 8 && j === 8 && k === 2 ? 1000 : 0),
  });
  // Slice 2 spans z in [3.75, 6.25): rows showing z = 6, 5, 4.
  assert.deepEqual(
    distinct(where(renderView(view2d('sagittal', [8, 7.5, 3.5]), [layerOf(thick)]), 1000), 1),
    [5, 6, 7],
  );
});

test('zoom: halving parallel_scale makes a structure twice as wide and tall; pan moves it', () => {
  const block = makeVolume({ dims: [16, 16, 8], value: (i, j) => (i >= 12 && i <= 13 && j >= 2 && j <= 3 ? 1000 : 0) });
  const at1 = where(renderView(view2d('axial', [7.5, 7.5, 4]), [layerOf(block)]), 1000);
  assert.deepEqual(
    [distinct(at1, 0), distinct(at1, 1)],
    [
      [12, 13],
      [2, 3],
    ],
  );
  // 0.5 mm per pixel centred on the block: x in [11.5, 13.5) -> columns 6..9.
  const zoomed = where(renderView(view2d('axial', [12.5, 2.5, 4], { parallelScale: 4 }), [layerOf(block)]), 1000);
  assert.deepEqual(
    [distinct(zoomed, 0), distinct(zoomed, 1)],
    [
      [6, 7, 8, 9],
      [6, 7, 8, 9],
    ],
  );
  // Looking 2 mm further to patient left moves the anatomy 2 pixels to the screen's left.
  const panned = where(renderView(view2d('axial', [9.5, 7.5, 4]), [layerOf(block)]), 1000);
  assert.deepEqual(distinct(panned, 0), [10, 11]);
});

test('an in-plane rotation of the camera rotates the picture', () => {
  const volume = markers();
  const upright = renderView(view2d('axial', [7.5, 7.5, 4]), [layerOf(volume)]);
  // view_up +x: screen right is +y, screen up +x, so pixel (px, py) shows voxel (15 - py, px).
  const turned = renderView(view2d('axial', [7.5, 7.5, 4], { camera: { view_up: [1, 0, 0] } }), [layerOf(volume)]);
  for (let y = 0; y < 16; y++)
    for (let x = 0; x < 16; x++) assert.deepEqual(px(turned, x, y), px(upright, 15 - y, x), `pixel (${x}, ${y})`);
});

test('an oblique camera (45 degrees in plane) samples through the general path', () => {
  const uniform = makeVolume({ dims: [16, 16, 8], value: () => 1000 });
  const a = Math.SQRT1_2;
  const image = renderView(blueBackground(view2d('axial', [7.5, 7.5, 4], { camera: { view_up: [a, -a, 0] } })), [
    layerOf(uniform),
  ]);
  const white = [255, 255, 255, 255];
  const blue = [0, 0, 255, 255];
  // The screen's corners fall 10.6 mm from the centre along the volume's axes: outside.
  for (const [x, y] of [
    [0, 0],
    [15, 0],
    [0, 15],
    [15, 15],
  ] as const)
    assert.deepEqual(px(image, x, y), blue, `corner (${x}, ${y})`);
  // Edge midpoints and the centre fall within the 16 x 16 mm square.
  for (const [x, y] of [
    [0, 8],
    [8, 0],
    [15, 8],
    [8, 15],
    [8, 8],
  ] as const)
    assert.deepEqual(px(image, x, y), white, `pixel (${x}, ${y})`);
});

test('a 2D image (one slice) shows in the axial window through its plane', () => {
  const flat = makeVolume({ dims: [16, 16, 1], value: (i, j) => (i === 13 && j === 8 ? 1000 : 0) });
  assert.deepEqual(where(renderView(view2d('axial', [7.5, 7.5, 0]), [layerOf(flat)]), 1000), [[13, 8]]);
  // Half a millimetre off its plane the single slice is no longer there.
  assert.deepEqual(where(renderView(view2d('axial', [7.5, 7.5, 0.5]), [layerOf(flat)]), 1000), []);
});
