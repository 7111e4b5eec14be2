import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderView } from '../../../src/sim/render/index.js';
import type { View2D } from '../../../src/sim/render/types.js';
import type { Vec3 } from '../../../src/volume/volume.js';
import { distinct, FRAMES, isColor, layerOf, makeVolume, PLANE_COLORS, pixelsWhere, px, view2d } from './fixtures.js';

// Same hand-worked mapping as the orientation tests: 1 mm per pixel; axial columns show x = px,
// rows y = py; sagittal columns y = px, coronal columns x = px; both with rows z = 11 - py.
const grey = layerOf(makeVolume({ dims: [16, 16, 8], value: () => 400 }));
const red = isColor(255, 0, 0);
const green = isColor(0, 255, 0);
const blue = isColor(0, 0, 255);

/** A crosshair entry for another window's plane through `point`, as the viewer passes it. */
const plane = (direction: keyof typeof FRAMES, point: Vec3) => ({
  planeNormal: FRAMES[direction].dop,
  planePoint: point,
  color: PLANE_COLORS[direction],
});

function withCrosshair(view: View2D, lines: View2D['crosshair']): View2D {
  return { ...view, crosshair: lines };
}

test('axial: the sagittal plane is a green vertical line, the coronal plane a blue horizontal one, over the image', () => {
  const view = withCrosshair(view2d('axial', [7.5, 7.5, 4]), [
    plane('sagittal', [5, 7.5, 4]),
    plane('coronal', [7.5, 10, 4]),
  ]);
  const image = renderView(view, [grey]);
  const greens = pixelsWhere(image, green);
  assert.deepEqual(distinct(greens, 0), [5]);
  assert.equal(greens.length, 15, 'the whole column but the crossing');
  const blues = pixelsWhere(image, blue);
  assert.deepEqual(distinct(blues, 1), [10]);
  assert.equal(blues.length, 16, 'the later line is drawn over the crossing');
  assert.deepEqual(px(image, 5, 10), [0, 0, 255, 255]);
  assert.deepEqual(px(image, 9, 3), [102, 102, 102, 255], 'elsewhere the image');
});

test('sagittal: the axial plane is a red horizontal line, the coronal plane a blue vertical one', () => {
  const view = withCrosshair(view2d('sagittal', [8, 7.5, 3.5]), [
    plane('axial', [8, 3, 5]),
    plane('coronal', [8, 3, 5]),
  ]);
  const image = renderView(view, [grey]);
  assert.deepEqual(distinct(pixelsWhere(image, red), 1), [6], 'z = 5 is row 6');
  assert.deepEqual(distinct(pixelsWhere(image, blue), 0), [3], 'y = 3 is column 3');
});

test('coronal: the axial plane is a red horizontal line, the sagittal plane a green vertical one', () => {
  const view = withCrosshair(view2d('coronal', [7.5, 8, 3.5]), [
    plane('axial', [12, 8, 2]),
    plane('sagittal', [12, 8, 2]),
  ]);
  const image = renderView(view, [grey]);
  assert.deepEqual(distinct(pixelsWhere(image, red), 1), [9], 'z = 2 is row 9');
  assert.deepEqual(distinct(pixelsWhere(image, green), 0), [12], 'x = 12 is column 12');
});

test('a line is one pixel wide at any zoom and wherever the plane falls between pixel centres', () => {
  for (const parallelScale of [8, 4, 3]) {
    for (const x of [5, 5.25, 5.5, 5.75]) {
      for (const normal of [
        [1, 0, 0],
        [-1, 0, 0],
      ] as Vec3[]) {
        const view = withCrosshair(view2d('axial', [7.5, 7.5, 4], { parallelScale }), [
          { planeNormal: normal, planePoint: [x, 0, 0], color: [0, 1, 0] },
        ]);
        const columns = distinct(pixelsWhere(renderView(view, [grey]), green), 0);
        assert.equal(columns.length, 1, `scale ${parallelScale}, x ${x}, normal ${normal}: columns ${columns}`);
      }
    }
  }
  // At 0.5 mm per pixel x = 5 lies at column 2·(5 - 7.5) + 7.5 = 2.5: between columns 2 and 3.
  const zoomed = withCrosshair(view2d('axial', [7.5, 7.5, 4], { parallelScale: 4 }), [plane('sagittal', [5, 0, 0])]);
  assert.ok([2, 3].includes(distinct(pixelsWhere(renderView(zoomed, [grey]), green), 0)[0]!));
});

test('a plane parallel to the view draws nothing; an oblique plane draws one pixel per row', () => {
  const parallel = withCrosshair(view2d('axial', [7.5, 7.5, 4]), [
    { planeNormal: [0, 0, 1], planePoint: [7.5, 7.5, 4], color: [1, 0, 0] },
  ]);
  assert.deepEqual(pixelsWhere(renderView(parallel, [grey]), red), []);
  const a = Math.SQRT1_2;
  // x + y = 15 through the centre: the anti-diagonal, pixel (15 - y, y) on row y.
  const oblique = withCrosshair(view2d('axial', [7.5, 7.5, 4]), [
    { planeNormal: [a, a, 0], planePoint: [7.5, 7.5, 4], color: [1, 0, 0] },
  ]);
  const line = pixelsWhere(renderView(oblique, [grey]), red);
  assert.deepEqual(
    line,
    Array.from({ length: 16 }, (_, y) => [15 - y, y]),
  );
});

test('with no layers the crosshair is drawn over the background', () => {
  const view = withCrosshair(view2d('axial', [7.5, 7.5, 4]), [plane('coronal', [0, 7, 0])]);
  const image = renderView(view, []);
  assert.deepEqual(distinct(pixelsWhere(image, blue), 1), [7]);
  assert.equal(pixelsWhere(image, isColor(0, 0, 0)).length, 16 * 15);
});
