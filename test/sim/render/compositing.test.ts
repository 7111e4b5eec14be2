import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderView } from '../../../src/sim/render/index.js';
import type { RenderLayer } from '../../../src/sim/render/types.js';
import type { Volume } from '../../../src/sim/volume.js';
import { layerOf, makeVolume, px, view2d } from './fixtures.js';

// Expected bytes are worked out by hand: a channel c in 0..1 becomes Math.round(c * 255).
const axial = view2d('axial', [7.5, 7.5, 4]);
const constant = (value: number): Volume => makeVolume({ dims: [16, 16, 8], value: () => value });
const centre = (layers: RenderLayer[]): number[] => px(renderView(axial, layers), 8, 8);

test('grey values go through the level window: (v - (level - window/2)) / window, clamped', () => {
  const lw = { level: 400, window: 400 }; // maps 200..600 to black..white
  assert.deepEqual(centre([layerOf(constant(300), { levelWindow: lw })]), [64, 64, 64, 255], '0.25 -> 63.75');
  assert.deepEqual(centre([layerOf(constant(500), { levelWindow: lw })]), [191, 191, 191, 255], '0.75 -> 191.25');
  assert.deepEqual(centre([layerOf(constant(150), { levelWindow: lw })]), [0, 0, 0, 255], 'below the window');
  assert.deepEqual(centre([layerOf(constant(900), { levelWindow: lw })]), [255, 255, 255, 255], 'above the window');
  assert.deepEqual(centre([layerOf(constant(-1500), { levelWindow: { level: -1000, window: 2000 } })]), [64, 64, 64, 255], 'negative values: (-1500 + 2000) / 2000');
});

test('a tint multiplies the grey value', () => {
  const lw = { level: 500, window: 1000 };
  assert.deepEqual(centre([layerOf(constant(400), { levelWindow: lw, color: [1, 0.5, 0] })]), [102, 51, 0, 255], 'grey 0.4 tinted orange');
});

test('opacity blends over what is below, and layer order decides what is on top', () => {
  const white = layerOf(constant(1000));
  const faintBlack = layerOf(constant(0), { opacity: 0.25 });
  assert.deepEqual(centre([white, faintBlack]), [191, 191, 191, 255], 'a quarter of black over white');
  assert.deepEqual(centre([faintBlack, white]), [255, 255, 255, 255], 'opaque white on top hides everything');
  const halfWhite = layerOf(constant(1000), { opacity: 0.6 });
  assert.deepEqual(centre([halfWhite]), [153, 153, 153, 255], '60% white over the black background');
  const view = { ...axial, background: [0, 0, 1] as [number, number, number] };
  assert.deepEqual(px(renderView(view, [halfWhite]), 8, 8), [153, 153, 255, 255], '60% white over a blue background: blue stays full');
  assert.deepEqual(centre([layerOf(constant(1000), { opacity: 0 })]), [0, 0, 0, 255], 'a transparent layer leaves the background');
});

test('label images: 0 is transparent, each value has its palette colour, label 1 takes the node colour', () => {
  const labels = makeVolume({ dims: [16, 16, 8], isLabel: true, value: (i) => (i < 6 ? i : 0) });
  const grey = layerOf(constant(400)); // 0.4 -> 102
  const image = renderView(axial, [grey, layerOf(labels)]);
  // The segmentation colours of the workbench's label sets, in order (label 1 first).
  const palette = [
    [255, 51, 51],
    [51, 255, 51],
    [51, 102, 255],
    [255, 217, 51],
    [204, 51, 255],
  ];
  palette.forEach((rgb, n) => assert.deepEqual(px(image, n + 1, 8), [...rgb, 255], `label ${n + 1}`));
  assert.deepEqual(px(image, 0, 8), [102, 102, 102, 255], 'label 0 shows the grey image below');
  assert.deepEqual(px(image, 10, 8), [102, 102, 102, 255]);
  const big = makeVolume({ dims: [16, 16, 8], isLabel: true, value: (i) => [9, 300, 65535][i] ?? 0 });
  const many = renderView(axial, [layerOf(big, { color: [0, 0, 1] })]);
  assert.deepEqual(px(many, 0, 8), [...palette[0]!, 255], 'the palette repeats every 8 labels: 9 is coloured as 1, not as the node');
  assert.deepEqual(px(many, 1, 8), [...palette[3]!, 255], '300 = 8 * 37 + 4: the fourth colour');
  assert.deepEqual(px(many, 2, 8), [255, 128, 26, 255], '65535 = 8 * 8191 + 7: the seventh colour, (1, 0.5, 0.1)');
  const tinted = renderView(axial, [layerOf(labels, { color: [0, 0, 1] })]);
  assert.deepEqual(px(tinted, 1, 8), [0, 0, 255, 255], 'label 1 in the node colour');
  assert.deepEqual(px(tinted, 2, 8), [51, 255, 51, 255], 'label 2 keeps its palette colour');
});

test('label colours blend with the opacity over the image below', () => {
  const labels = makeVolume({ dims: [16, 16, 8], isLabel: true, value: () => 1 });
  // 60% of (1, 0.2, 0.2) over black.
  assert.deepEqual(centre([layerOf(labels, { opacity: 0.6 })]), [153, 31, 31, 255]);
  // 60% of (1, 0.2, 0.2) over grey 0.4: 0.4·0.4 + 0.6 = 0.76, 0.16 + 0.12 = 0.28.
  assert.deepEqual(centre([layerOf(constant(400)), layerOf(labels, { opacity: 0.6 })]), [194, 71, 71, 255]);
});

test('each layer is drawn at its own time step', () => {
  const series = makeVolume({ dims: [16, 16, 8], timeSteps: 3, value: (_i, _j, _k, t) => t * 400 });
  assert.deepEqual(centre([layerOf(series, { timeStep: 0 })]), [0, 0, 0, 255]);
  assert.deepEqual(centre([layerOf(series, { timeStep: 1 })]), [102, 102, 102, 255]);
  assert.deepEqual(centre([layerOf(series, { timeStep: 2 })]), [204, 204, 204, 255]);
  assert.deepEqual(centre([layerOf(series, { timeStep: 9 })]), [204, 204, 204, 255], 'a step past the end shows the last frame');
  // A static image under a 4D one keeps its single frame whatever the time.
  // 0.8 · 0.4 + 0.6 = 0.92.
  const overlay = layerOf(constant(1000), { opacity: 0.6 });
  assert.deepEqual(centre([layerOf(series, { timeStep: 2 }), { ...overlay, timeStep: 2 }]), [235, 235, 235, 255]);
});

test('bad data never crashes: NaN voxels, a frame shorter than its dimensions, no layers, a missing parallel_scale', () => {
  const nan = makeVolume({ dims: [16, 16, 8], value: () => NaN });
  assert.deepEqual(centre([layerOf(nan)]), [0, 0, 0, 255]);
  const nanLabels = makeVolume({ dims: [16, 16, 8], isLabel: true, value: () => NaN });
  assert.deepEqual(centre([layerOf(constant(400)), layerOf(nanLabels)]), [102, 102, 102, 255], 'NaN labels are transparent');
  const short: Volume = { ...constant(1000), frames: [new Float32Array(10)] };
  assert.deepEqual(centre([layerOf(constant(400)), layerOf(short)]), [102, 102, 102, 255], 'a truncated frame is left out');
  const noFrames: Volume = { ...constant(1000), frames: [] };
  assert.deepEqual(centre([layerOf(noFrames)]), [0, 0, 0, 255]);
  assert.deepEqual(centre([]), [0, 0, 0, 255]);
  const unscaled = { ...axial, camera: { ...axial.camera, parallel_scale: null } };
  assert.equal(renderView(unscaled, [layerOf(constant(1000))]).data.length, 16 * 16 * 4);
  const lost = { ...axial, camera: { ...axial.camera, focal_point: [NaN, 0, Infinity] as [number, number, number] } };
  assert.equal(renderView(lost, [layerOf(constant(1000))]).data.length, 16 * 16 * 4, 'a camera with NaN in it');
});
