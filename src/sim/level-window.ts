import {
  levelOf,
  newLevelWindow,
  setDefaultBoundaries,
  setDefaultLevelWindow,
  setRangeMinMax,
  setWindowBounds,
  windowOf,
  type LevelWindowState,
} from './level-window-state.js';
import type { Volume } from '../volume/volume.js';

export interface LevelWindow {
  level: number;
  window: number;
}

/** Extremes of some voxels as MITK's image statistics find them in one pass. */
export interface Extremes {
  min: number;
  max: number;
  min2nd: number;
  max2nd: number;
  minCount: number;
  maxCount: number;
  voxels: number;
}

const cache = new WeakMap<Volume, LevelWindowState>();

/** For an image without a single number to go on. */
const fallback = (): LevelWindowState => newLevelWindow(0.5, 1);

/**
 * The level window MITK gives a new image (`LevelWindow::SetAuto` from the central slice, as
 * the image mapper's default properties ask), with its range and default: computed once per
 * volume, whatever its values. Callers get a copy they may change.
 */
export function autoLevelWindowState(volume: Volume): LevelWindowState {
  let lw = cache.get(volume);
  if (lw === undefined) {
    lw = computeAutoLevelWindow(volume);
    cache.set(volume, lw);
  }
  return { ...lw };
}

/** The current level and window of `autoLevelWindowState`. */
export function autoLevelWindow(volume: Volume): LevelWindow {
  const s = autoLevelWindowState(volume);
  return { level: levelOf(s), window: windowOf(s) };
}

function computeAutoLevelWindow(volume: Volume): LevelWindowState {
  const [nx, ny, nz] = volume.dims;
  const slice = nx * ny;
  const steps = volume.frames.length;
  const middle = volume.frames[Math.floor(steps / 2)];
  if (middle === undefined) return fallback();
  // The central slice first; if it is uniform, the whole first time step, then later ones.
  let s = extremes(middle, Math.floor(nz / 2) * slice, slice);
  let counts = s;
  if (s.min === s.max) {
    s = counts = extremes(volume.frames[0]!, 0, slice * nz);
    counts = { ...counts, voxels: slice * nz * steps };
    for (let t = 1; t < steps && s.min === s.max; t++) s = extremes(volume.frames[t]!, 0, slice * nz);
  }
  // Nothing but NaN: MITK's statistics have nothing to go on either.
  if (!(s.min <= s.max)) return fallback();
  let { min, max } = s;
  const { min2nd, max2nd } = s;
  // MITK skips a 32-bit integer image's -2^16 as an out-of-range marker.
  if (volume.componentType === 'int32' && min === -65536) min = min2nd;
  if (min === max) min = max - 1;
  else {
    const extra = 0.15 * (max - min);
    min -= extra;
    max += extra;
  }
  if (!Number.isFinite(min)) min = counts.min2nd;
  if (!Number.isFinite(max)) max = counts.max2nd;
  if (!Number.isFinite(min) || !Number.isFinite(max)) return fallback();
  const lw = newLevelWindow();
  lw.floating = volume.componentType === 'float32' || volume.componentType === 'float64';
  setRangeMinMax(lw, min, max);
  setDefaultBoundaries(lw, min, max);

  // The window: compared with the widened bounds, as MITK does, so two- and three-valued
  // images take the general branch unless the widening was zero.
  if (min2nd === max) {
    // full range
  } else if (min2nd === max2nd) {
    const delta = Math.min(min2nd - min, max - min2nd);
    min = min2nd - delta;
    max = min2nd + delta;
  } else {
    const inner = max2nd - min2nd;
    min = counts.minCount / counts.voxels > 0.2 ? Math.max(min, min2nd - inner / 2) : min2nd;
    max = counts.maxCount / counts.voxels > 0.2 ? Math.min(max, max2nd + inner / 2) : max2nd;
  }
  setWindowBounds(lw, min, max);
  setDefaultLevelWindow(lw, (max - min) / 2 + min, max - min);
  return lw;
}

/** Smallest, second smallest, second largest and largest value and how often the extremes occur, in MITK's one-pass way. */
export function extremes(frame: Float32Array, start: number, length: number): Extremes {
  let min = Number.MAX_VALUE;
  let max = -Number.MAX_VALUE;
  let min2nd = min;
  let max2nd = max;
  let minCount = 0;
  let maxCount = 0;
  const end = Math.min(frame.length, start + length);
  for (let i = start; i < end; i++) {
    const v = frame[i]!;
    if (v < min) {
      min2nd = min;
      min = v;
      minCount = 1;
    } else if (v === min) minCount++;
    else if (v < min2nd) min2nd = v;
    if (v > max) {
      max2nd = max;
      max = v;
      maxCount = 1;
    } else if (v === max) maxCount++;
    else if (v > max2nd) max2nd = v;
  }
  if (min === max) min2nd = max2nd = max;
  return { min, max, min2nd, max2nd, minCount, maxCount, voxels: length };
}
