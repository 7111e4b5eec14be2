import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderView } from '../../../src/sim/render/index.js';
import type { RgbaImage, View3D } from '../../../src/sim/render/types.js';
import { worldBounds, type Vec3 } from '../../../src/volume/volume.js';
import { isColor, label, layerOf, makeVolume, pixelsWhere, px, view3d } from './fixtures.js';

const volume = makeVolume({ dims: [16, 16, 8], value: (i, _j, k) => (k >= 4 ? 1000 : 200) + (i >= 12 ? -1000 : 0) });
const bounds = worldBounds(volume); // (-0.5, -0.5, -0.5) .. (15.5, 15.5, 7.5)
const centre: Vec3 = [7.5, 7.5, 3.5];
const axialAt = (z: number): View3D['planes'][number] => ({
  planeNormal: [0, 0, 1],
  planePoint: [7.5, 7.5, z],
  color: [1, 0, 0],
});
const threePlanes: View3D['planes'] = [
  axialAt(4),
  { planeNormal: [-1, 0, 0], planePoint: [8, 7.5, 3.5], color: [0, 1, 0] },
  { planeNormal: [0, 1, 0], planePoint: [7.5, 8, 3.5], color: [0, 0, 1] },
];

// Standard views (LPS): from the feet (caudal) looking up +z with view-up -y, so screen right is
// +x (patient left); from the head (cranial) looking down -z, screen right is patient right.
const CAUDAL = { dop: [0, 0, 1] as Vec3, up: [0, -1, 0] as Vec3 };
const CRANIAL = { dop: [0, 0, -1] as Vec3, up: [0, -1, 0] as Vec3 };
const ANTERIOR = { dop: [0, 1, 0] as Vec3, up: [0, 0, 1] as Vec3 };
const LEFT = { dop: [-1, 0, 0] as Vec3, up: [0, 0, 1] as Vec3 };

const from = (
  side: { dop: Vec3; up: Vec3 },
  planes: View3D['planes'],
  options: Parameters<typeof view3d>[5] = {},
): View3D => view3d(centre, side.dop, side.up, planes, bounds, { distance: 80, ...options });
const same = (a: RgbaImage, b: RgbaImage): boolean => Buffer.from(a.data).equals(Buffer.from(b.data));

test('without bounds only the background: a vertical gradient from dark blue to black', () => {
  const image = renderView({ ...from(CAUDAL, threePlanes), bounds: null }, [layerOf(volume)]);
  for (let y = 0; y < image.height; y++)
    for (let x = 1; x < image.width; x++) assert.deepEqual(px(image, x, y), px(image, 0, y), `row ${y} is uniform`);
  const top = px(image, 0, 0);
  assert.ok(top[2]! > 50 && top[2]! > top[0]! && top[2]! > top[1]!, `the top is dark blue: ${top}`);
  assert.deepEqual(px(image, 0, image.height - 1), [0, 0, 0, 255], 'the bottom is black');
  for (let y = 1; y < image.height; y++) assert.ok(px(image, 0, y)[2]! <= px(image, 0, y - 1)[2]!, 'darker downwards');
  assert.ok(
    same(renderView({ ...from(CAUDAL, []), bounds }, [layerOf(volume)]), image),
    'no planes: the same background',
  );
});

test('the nearer plane hides the farther one (depth ordering)', () => {
  // Two axial planes: z = 1 cuts the grey half of the volume (200 -> 51), z = 6 the white half.
  const planes = [axialAt(1), axialAt(6)];
  const fromHead = renderView(from(CRANIAL, planes), [layerOf(volume)]);
  const fromFeet = renderView(from(CAUDAL, planes), [layerOf(volume)]);
  assert.deepEqual(px(fromHead, 32, 32), [255, 255, 255, 255], 'from the head z = 6 is in front');
  assert.deepEqual(px(fromFeet, 32, 32), [51, 51, 51, 255], 'from the feet z = 1 is in front');
  const reversed = renderView(from(CRANIAL, [...planes].reverse()), [layerOf(volume)]);
  assert.ok(same(reversed, fromHead), 'the order of the planes does not matter');
});

test('3D orientation: patient left is on screen right from the feet and on screen left from the head', () => {
  // Voxels with i >= 12 (x >= 11.5, patient left) are dark on the plane z = 4; the rest is white.
  const darkSide = (image: RgbaImage): number => {
    const dark = pixelsWhere(image, isColor(0, 0, 0)).filter(([x, y]) => y > 20 && y < 44 && x > 10 && x < 54);
    return dark.reduce((sum, [x]) => sum + x, 0) / dark.length;
  };
  assert.ok(darkSide(renderView(from(CAUDAL, [axialAt(4)]), [layerOf(volume)])) > 32, 'from the feet: right');
  assert.ok(darkSide(renderView(from(CRANIAL, [axialAt(4)]), [layerOf(volume)])) < 32, 'from the head: left');
});

test('a plane is mid-grey where no layer covers it, framed by a 1-pixel border in its colour', () => {
  const image = renderView(from(CAUDAL, [axialAt(4)]), []);
  const row = Array.from({ length: 64 }, (_, x) => px(image, x, 32));
  const background = px(image, 0, 32).join();
  const hits = row.map((c, x) => ({ c, x })).filter(({ c }) => c.join() !== background);
  assert.ok(hits.length > 10, 'the plane shows');
  const first = hits[0]!;
  const last = hits[hits.length - 1]!;
  assert.deepEqual(first.c, [255, 0, 0, 255], 'left edge in the plane colour');
  assert.deepEqual(last.c, [255, 0, 0, 255], 'right edge in the plane colour');
  const inside = hits.slice(1, -1);
  assert.ok(
    inside.every(({ c }) => c[0] === c[1] && c[1] === c[2] && c[0]! > 30 && c[0]! < 200),
    'grey inside',
  );
  assert.ok(inside.length === last.x - first.x - 1, 'the border is one pixel on each side');
  // The plane clipped to the bounds spans 16 mm square: its image is square.
  const reds = pixelsWhere(image, isColor(255, 0, 0));
  const xs = reds.map(([x]) => x);
  const ys = reds.map(([, y]) => y);
  assert.equal(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
});

test('layers are composited at the hit point as in 2D, over the plane grey; labels in their colours', () => {
  const grey = makeVolume({ dims: [16, 16, 8], value: () => 400 });
  const labels = makeVolume({
    dims: [16, 16, 8],
    labels: [label(1, { color: [1, 0.2, 0.2], opacity: 1 })],
    value: () => 1,
  });
  const image = renderView(from(CAUDAL, [axialAt(4)]), [layerOf(grey), layerOf(labels, { opacity: 0.6 })]);
  assert.deepEqual(px(image, 32, 32), [194, 71, 71, 255], '60% label colour (1, 0.2, 0.2) over grey 0.4');
});

test('two standard views give different images, each facing its own plane', () => {
  const anterior = renderView(from(ANTERIOR, threePlanes), [layerOf(volume)]);
  const left = renderView(from(LEFT, threePlanes), [layerOf(volume)]);
  assert.ok(!same(anterior, left));
  const count = (image: RgbaImage, rgb: [number, number, number]): number => pixelsWhere(image, isColor(...rgb)).length;
  assert.ok(count(anterior, [0, 0, 255]) > 40, 'from the front the coronal plane shows its blue frame');
  assert.ok(count(left, [0, 255, 0]) > 40, 'from the left the sagittal plane shows its green frame');
  assert.ok(count(anterior, [0, 0, 255]) > count(anterior, [0, 255, 0]));
  assert.ok(count(left, [0, 255, 0]) > count(left, [0, 0, 255]));
});

test('a narrower view angle magnifies; the same view renders the same pixels', () => {
  const sky = renderView({ ...from(CAUDAL, []), bounds: null }, []);
  const covered = (image: RgbaImage): number =>
    pixelsWhere(image, () => true).filter(([x, y]) => px(image, x, y).join() !== px(sky, x, y).join()).length;
  const wide = renderView(from(CAUDAL, [axialAt(4)], { angle: 30 }), []);
  const narrow = renderView(from(CAUDAL, [axialAt(4)], { angle: 15 }), []);
  assert.ok(covered(narrow) > 3 * covered(wide), `${covered(narrow)} vs ${covered(wide)}`);
  assert.ok(
    same(
      renderView(from(ANTERIOR, threePlanes), [layerOf(volume)]),
      renderView(from(ANTERIOR, threePlanes), [layerOf(volume)]),
    ),
  );
});

test('a camera inside the box and a missing view angle still render', () => {
  const inside = renderView(view3d(centre, CAUDAL.dop, CAUDAL.up, threePlanes, bounds, { distance: 1 }), [
    layerOf(volume),
  ]);
  assert.equal(inside.data.length, 64 * 64 * 4);
  const lost = from(CAUDAL, threePlanes);
  lost.camera = { ...lost.camera, position: [NaN, NaN, NaN] };
  assert.equal(renderView(lost, [layerOf(volume)]).data.length, 64 * 64 * 4, 'a camera with NaN in it');
  const noAngle = from(CAUDAL, threePlanes);
  noAngle.camera = { ...noAngle.camera, perspective_angle: null };
  assert.ok(
    same(
      renderView(noAngle, [layerOf(volume)]),
      renderView(from(CAUDAL, threePlanes, { angle: 30 }), [layerOf(volume)]),
    ),
    'VTK default of 30 degrees',
  );
});
