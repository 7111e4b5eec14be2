import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoLevelWindow } from '../../src/sim/level-window.js';
import { IDENTITY, type Vec3, type Volume } from '../../src/volume/volume.js';

/** A volume of `dims` whose voxels (x fastest) take the values given, one list per time step. */
function volume(dims: Vec3, ...frames: number[][]): Volume {
  return {
    dims,
    spacing: [1, 1, 1],
    origin: [0, 0, 0],
    direction: IDENTITY,
    frames: frames.map((f) => Float32Array.from(f)),
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'int16',
    range: [0, 0],
  };
}

const repeat = (value: number, n: number): number[] => new Array<number>(n).fill(value);

// Expected values worked out by hand from MITK's rule: the extremes of the central slice are
// widened by 15% of their span into the range; the window spans the second smallest to the
// second largest value, reaching half the inner span further where an extreme covers more than
// 20% of the slice; the window may widen the range.
test('two values, the bright one rare: the window runs from the background to beyond the bright value', () => {
  // min 20 (90%), max 220 (10%): the range widens to -10..250; the lower end is 220 + 100 (20%+
  // minimum), the upper the second largest, 20; swapped, 20..320, and the range grows to 320.
  assert.deepEqual(autoLevelWindow(volume([10, 10, 1], [...repeat(20, 90), ...repeat(220, 10)])), {
    level: 170,
    window: 300,
  });
});

test('two values, both frequent: both ends reach half the inner span further', () => {
  // As above, but the maximum covers 30%: the upper end becomes min(250, 20 - 100) = -80.
  assert.deepEqual(autoLevelWindow(volume([10, 10, 1], [...repeat(20, 70), ...repeat(220, 30)])), {
    level: 120,
    window: 400,
  });
});

test('three values: the middle one in the middle of the grey ramp', () => {
  // 0, 50, 100 widened to -15..115; half-width min(50 + 15, 115 - 50) = 65 around 50.
  assert.deepEqual(autoLevelWindow(volume([3, 3, 1], [0, 0, 0, 50, 50, 50, 100, 100, 100])), {
    level: 50,
    window: 130,
  });
});

test('a CT-like slice: much air, a tissue ramp, a little bone', () => {
  // Air -1000 on half the slice pulls the lower end to 0 - 440 / 2; bone (5%) is left out.
  const tissue = Array.from({ length: 45 }, (_, i) => i * 10);
  assert.deepEqual(autoLevelWindow(volume([10, 10, 1], [...repeat(-1000, 50), ...tissue, ...repeat(1000, 5)])), {
    level: 110,
    window: 660,
  });
});

test('a uniform central slice falls back to the whole volume; a uniform volume gets one unit below its value', () => {
  // Slices: [0, 10], [5, 5], [20, 30]; the whole volume has 0 and 30 once each: window 5..20.
  assert.deepEqual(autoLevelWindow(volume([2, 1, 3], [0, 10, 5, 5, 20, 30])), { level: 12.5, window: 15 });
  assert.deepEqual(autoLevelWindow(volume([2, 2, 2], repeat(7, 8))), { level: 6.5, window: 1 });
});

test('the central slice of the middle time step decides; bad values never crash', () => {
  const still = volume([2, 2, 1], [0, 0, 0, 0], [0, 10, 20, 30], [5, 5, 5, 5]);
  assert.deepEqual(autoLevelWindow(still), autoLevelWindow(volume([2, 2, 1], [0, 10, 20, 30])));
  const empty = volume([2, 2, 1], [NaN, NaN, NaN, NaN]);
  const lw = autoLevelWindow(empty);
  assert.ok(Number.isFinite(lw.level) && lw.window > 0, JSON.stringify(lw));
  assert.deepEqual(autoLevelWindow({ ...empty, frames: [] }), { level: 0.5, window: 1 });
});
