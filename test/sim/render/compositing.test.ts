import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderView } from '../../../src/sim/render/index.js';
import type { RenderLayer } from '../../../src/sim/render/types.js';
import type { Volume } from '../../../src/volume/volume.js';
import { label, layerOf, makeVolume, px, view2d, withGroup } from './fixtures.js';

// Expected bytes are worked out by hand: a channel c in 0..1 becomes Math.round(c * 255); a grey
// image's value picks one of 256 greys as MITK's level-window filter does.
const axial = view2d('axial', [7.5, 7.5, 4]);
const constant = (value: number): Volume => makeVolume({ dims: [16, 16, 8], value: () => value });
const centre = (layers: RenderLayer[]): number[] => px(renderView(axial, layers), 8, 8);

test("grey values go through the level window as MITK's filter maps them: entry trunc((v - lower) * 256 / window + 1/2) of 256 greys, clamped", () => {
  const lw = { level: 400, window: 400 }; // maps 200..600 to black..white
  assert.deepEqual(centre([layerOf(constant(300), { levelWindow: lw })]), [64, 64, 64, 255], '64.5 -> 64');
  assert.deepEqual(centre([layerOf(constant(500), { levelWindow: lw })]), [192, 192, 192, 255], '192.5 -> 192');
  assert.deepEqual(centre([layerOf(constant(150), { levelWindow: lw })]), [0, 0, 0, 255], 'below the window');
  assert.deepEqual(centre([layerOf(constant(900), { levelWindow: lw })]), [255, 255, 255, 255], 'above the window');
  assert.deepEqual(
    centre([layerOf(constant(-1500), { levelWindow: { level: -1000, window: 2000 } })]),
    [64, 64, 64, 255],
    'negative values: (-1500 + 2000) * 256 / 2000 + 1/2 = 64.5',
  );
});

test('a tint multiplies the grey value', () => {
  const lw = { level: 500, window: 1000 };
  assert.deepEqual(
    centre([layerOf(constant(400), { levelWindow: lw, color: [1, 0.5, 0] })]),
    [102, 51, 0, 255],
    'grey 0.4 tinted orange',
  );
});

test('opacity blends over what is below, and layer order decides what is on top', () => {
  const white = layerOf(constant(1000));
  const faintBlack = layerOf(constant(0), { opacity: 0.25 });
  assert.deepEqual(centre([white, faintBlack]), [191, 191, 191, 255], 'a quarter of black over white');
  assert.deepEqual(centre([faintBlack, white]), [255, 255, 255, 255], 'opaque white on top hides everything');
  const halfWhite = layerOf(constant(1000), { opacity: 0.6 });
  assert.deepEqual(centre([halfWhite]), [153, 153, 153, 255], '60% white over the black background');
  const view = { ...axial, background: [0, 0, 1] as [number, number, number] };
  assert.deepEqual(
    px(renderView(view, [halfWhite]), 8, 8),
    [153, 153, 255, 255],
    '60% white over a blue background: blue stays full',
  );
  assert.deepEqual(
    centre([layerOf(constant(1000), { opacity: 0 })]),
    [0, 0, 0, 255],
    'a transparent layer leaves the background',
  );
});

test('segmentations: each label in its own colour and opacity; 0, hidden labels and values without a label leave what is below; the node colour does not apply', () => {
  const labels = [
    label(1, { color: [1, 0, 0], opacity: 1 }),
    label(2, { color: [0, 0, 1], opacity: 0.6 }),
    label(3, { color: [0, 1, 0], opacity: 1, visible: false }),
    label(65535, { color: [1, 1, 0], opacity: 1 }),
  ];
  const seg = makeVolume({ dims: [16, 16, 8], labels, value: (i) => [0, 1, 2, 3, 4, 65535][i] ?? 0 });
  const grey = layerOf(constant(400)); // 0.4 -> 102
  const image = renderView(axial, [grey, layerOf(seg, { color: [0, 1, 0] })]);
  assert.deepEqual(px(image, 0, 8), [102, 102, 102, 255], '0 is the unlabelled background');
  assert.deepEqual(px(image, 1, 8), [255, 0, 0, 255], 'label 1 in its red, not in the node colour');
  // 60% blue over grey 0.4: 0.4·0.4 = 0.16 and 0.16 + 0.6 = 0.76.
  assert.deepEqual(px(image, 2, 8), [41, 41, 194, 255], 'label 2 at its own opacity');
  assert.deepEqual(px(image, 3, 8), [102, 102, 102, 255], 'a hidden label is not drawn');
  assert.deepEqual(px(image, 4, 8), [102, 102, 102, 255], 'a value no label stands for is not drawn');
  assert.deepEqual(px(image, 5, 8), [255, 255, 0, 255], 'the largest label value');
});

test('a label blends at its opacity times the node opacity', () => {
  const seg = makeVolume({
    dims: [16, 16, 8],
    labels: [label(1, { color: [1, 0.2, 0.2], opacity: 1 })],
    value: () => 1,
  });
  // 60% of (1, 0.2, 0.2) over black.
  assert.deepEqual(centre([layerOf(seg, { opacity: 0.6 })]), [153, 31, 31, 255]);
  // 60% of (1, 0.2, 0.2) over grey 0.4: 0.4·0.4 + 0.6 = 0.76, 0.16 + 0.12 = 0.28.
  assert.deepEqual(centre([layerOf(constant(400)), layerOf(seg, { opacity: 0.6 })]), [194, 71, 71, 255]);
  const half = makeVolume({
    dims: [16, 16, 8],
    labels: [label(1, { color: [1, 1, 1], opacity: 0.5 })],
    value: () => 1,
  });
  assert.deepEqual(centre([layerOf(half, { opacity: 0.5 })]), [64, 64, 64, 255], 'a quarter of white: 0.5 x 0.5');
  assert.deepEqual(centre([layerOf(half, { opacity: 0 })]), [0, 0, 0, 255], 'node opacity 0 hides every label');
});

test('label groups are layered in order, so overlapping groups both show', () => {
  const first = makeVolume({
    dims: [16, 16, 8],
    labels: [label(1, { color: [1, 0, 0], opacity: 0.5 })],
    value: (i) => (i < 8 ? 1 : 0),
  });
  const seg = withGroup(first, [label(2, { color: [0, 0, 1], opacity: 0.5 })], (i) => (i >= 4 ? 2 : 0));
  const image = renderView(axial, [layerOf(seg)]);
  assert.deepEqual(px(image, 1, 8), [128, 0, 0, 255], 'group 0 alone');
  assert.deepEqual(px(image, 12, 8), [0, 0, 128, 255], 'group 1 alone');
  // Group 1 over group 0: red 0.5 · 0.5 = 0.25, blue 0.5.
  assert.deepEqual(px(image, 6, 8), [64, 0, 128, 255], 'both, the later group on top');
});

test('each layer is drawn at its own time step', () => {
  const series = makeVolume({ dims: [16, 16, 8], timeSteps: 3, value: (_i, _j, _k, t) => t * 400 });
  assert.deepEqual(centre([layerOf(series, { timeStep: 0 })]), [0, 0, 0, 255]);
  // Entries trunc(400 / 1000 * 256 + 1/2) = 102 and trunc(800 / 1000 * 256 + 1/2) = 205.
  assert.deepEqual(centre([layerOf(series, { timeStep: 1 })]), [102, 102, 102, 255]);
  assert.deepEqual(centre([layerOf(series, { timeStep: 2 })]), [205, 205, 205, 255]);
  assert.deepEqual(
    centre([layerOf(series, { timeStep: 9 })]),
    [205, 205, 205, 255],
    'a step past the end shows the last frame',
  );
  // A static image under a 4D one keeps its single frame whatever the time.
  // 205/255 · 0.4 + 0.6 = 0.9216.
  const overlay = layerOf(constant(1000), { opacity: 0.6 });
  assert.deepEqual(centre([layerOf(series, { timeStep: 2 }), { ...overlay, timeStep: 2 }]), [235, 235, 235, 255]);
});

test('bad data never crashes: NaN voxels, a frame shorter than its dimensions, no layers, a missing parallel_scale', () => {
  const nan = makeVolume({ dims: [16, 16, 8], value: () => NaN });
  assert.deepEqual(centre([layerOf(nan)]), [0, 0, 0, 255]);
  const nanLabels = makeVolume({ dims: [16, 16, 8], labels: [label(1)], value: () => NaN });
  assert.deepEqual(
    centre([layerOf(constant(400)), layerOf(nanLabels)]),
    [102, 102, 102, 255],
    'NaN labels are transparent',
  );
  const short: Volume = { ...constant(1000), frames: [new Float32Array(10)] };
  assert.deepEqual(
    centre([layerOf(constant(400)), layerOf(short)]),
    [102, 102, 102, 255],
    'a truncated frame is left out',
  );
  const noFrames: Volume = { ...constant(1000), frames: [] };
  assert.deepEqual(centre([layerOf(noFrames)]), [0, 0, 0, 255]);
  assert.deepEqual(centre([]), [0, 0, 0, 255]);
  const unscaled = { ...axial, camera: { ...axial.camera, parallel_scale: null } };
  assert.equal(renderView(unscaled, [layerOf(constant(1000))]).data.length, 16 * 16 * 4);
  const lost = { ...axial, camera: { ...axial.camera, focal_point: [NaN, 0, Infinity] as [number, number, number] } };
  assert.equal(renderView(lost, [layerOf(constant(1000))]).data.length, 16 * 16 * 4, 'a camera with NaN in it');
});
