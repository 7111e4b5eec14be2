import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layersFor } from '../../../src/sim/viewer/layers.js';
import { TimeNavigation, timeGeometry } from '../../../src/sim/viewer/time.js';
import { FakeStore, levelWindowProperty, makeVolume } from './harness.js';

const contexts = {
  axial: ['axial', 'stdmulti.widget0'],
  coronal: ['coronal', 'stdmulti.widget2'],
  cell: ['mxn__widget0'],
};

test("defaults: visible, opaque, white, MITK's automatic level window, layer 0, creation order", () => {
  const store = new FakeStore();
  store.add('a', makeVolume({ value: (i) => i * 10 }));
  store.add('b', makeVolume());
  store.add('no-data', null);
  const layers = layersFor(store, contexts.axial, new TimeNavigation());
  assert.deepEqual(
    layers.map((l) => l.uid),
    ['a', 'b'],
  );
  assert.deepEqual(
    {
      opacity: layers[0]!.opacity,
      color: layers[0]!.color,
      lw: layers[0]!.levelWindow,
      layer: layers[0]!.layer,
      t: layers[0]!.timeStep,
    },
    // Values 0..70 in steps of 10, each in 1/8 of the central slice: the rare extremes are left
    // out, the window runs from the second smallest to the second largest value.
    { opacity: 1, color: [1, 1, 1], lw: { level: 35, window: 50 }, layer: 0, t: 0 },
  );
  // A constant image still gets a usable window: one unit below its value.
  assert.deepEqual(layers[1]!.levelWindow, { level: -0.5, window: 1 });
});

test('node properties: opacity, colour, level window and layer order', () => {
  const store = new FakeStore();
  store.add('top', makeVolume(), {
    layer: { type: 'IntProperty', value: 5 },
    opacity: { type: 'FloatProperty', value: 0.25 },
  });
  store.add('bottom', makeVolume(), {
    layer: { type: 'IntProperty', value: 1 },
    color: { type: 'ColorProperty', value: [1, 0.5, 0] },
    levelwindow: levelWindowProperty(40, 400),
  });
  const layers = layersFor(store, contexts.axial, new TimeNavigation());
  assert.deepEqual(
    layers.map((l) => l.uid),
    ['bottom', 'top'],
  );
  assert.equal(layers[1]!.opacity, 0.25);
  assert.deepEqual(layers[0]!.color, [1, 0.5, 0]);
  assert.deepEqual(layers[0]!.levelWindow, { level: 40, window: 400 });
});

test('per-window visibility and layer: StdMulti answers to its URL id and to its renderer name, MxN to the cell id', () => {
  // Open question in the references: the Python client writes the URL id (`axial`) as the
  // context, the spec's example the renderer name (`stdmulti.widget0`). Both are honoured.
  const store = new FakeStore();
  // Images of more than two values: a uniform one counts as binary in MITK and lies on layer 10.
  store.add('a', makeVolume({ value: (i) => i }));
  store.add('b', makeVolume({ value: (i) => i }));
  store.set('a', 'visible', { type: 'BoolProperty', value: false }, 'axial');
  store.set('b', 'visible', { type: 'BoolProperty', value: false }, 'stdmulti.widget2');
  store.set('b', 'visible', { type: 'BoolProperty', value: false }, 'mxn__widget0');
  const time = new TimeNavigation();
  assert.deepEqual(
    layersFor(store, contexts.axial, time).map((l) => l.uid),
    ['b'],
  );
  assert.deepEqual(
    layersFor(store, contexts.coronal, time).map((l) => l.uid),
    ['a'],
  );
  assert.deepEqual(
    layersFor(store, contexts.cell, time).map((l) => l.uid),
    ['a'],
  );
  // A node hidden everywhere can be shown in one window.
  store.set('a', 'visible', { type: 'BoolProperty', value: false });
  store.set('a', 'visible', { type: 'BoolProperty', value: true }, 'mxn__widget0');
  assert.deepEqual(
    layersFor(store, contexts.cell, time).map((l) => l.uid),
    ['a'],
  );
  assert.deepEqual(
    layersFor(store, ['sagittal', 'stdmulti.widget1'], time).map((l) => l.uid),
    ['b'],
  );
  // Per-window layer overrides the node's layer in that window only.
  store.set('a', 'layer', { type: 'IntProperty', value: 9 }, 'stdmulti.widget1');
  store.set('a', 'visible', { type: 'BoolProperty', value: true }, 'sagittal');
  assert.deepEqual(
    layersFor(store, ['sagittal', 'stdmulti.widget1'], time).map((l) => l.uid),
    ['b', 'a'],
  );
  assert.deepEqual(
    layersFor(store, contexts.cell, time).map((l) => l.uid),
    ['a'],
  );
});

test('each volume is drawn at its own time step for the global time point', () => {
  const store = new FakeStore();
  const slow = makeVolume({ timeSteps: 4, timeStepMs: 1000 });
  const fast = makeVolume({ timeSteps: 10, timeStepMs: 100 });
  store.add('slow', slow);
  store.add('fast', fast);
  store.add('static', makeVolume());
  const time = new TimeNavigation();
  time.reset(timeGeometry([slow, fast]));
  // The geometry is that of the volume with the most steps: 10 x 100 ms.
  time.setTimePoint(750);
  assert.deepEqual(
    layersFor(store, [], time).map((l) => l.timeStep),
    [0, 7, 0],
  );
  time.setStep(9);
  assert.deepEqual(
    layersFor(store, [], time).map((l) => l.timeStep),
    [0, 9, 0],
  );
});
