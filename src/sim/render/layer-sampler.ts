import type { Vec3, Volume } from '../volume.js';
import type { RenderLayer, Rgb } from './types.js';
import { labelColor } from './palette.js';

/**
 * A layer ready to be sampled: everything that does not change from pixel to pixel is worked
 * out once, so the per-pixel work is a rounding, a bounds check and a table look-up.
 */
export interface PreparedLayer {
  volume: Volume;
  frame: Float32Array;
  opacity: number;
  isLabel: boolean;
  /** Grey mapping: grey = clamp((v - low) * scale, 0, 1). */
  low: number;
  scale: number;
  tint: Rgb;
  /** Label colours by value (0..255); index 0 unused. */
  labelRgb: Float32Array;
  /** Row-major inverse direction scaled by 1/spacing: index = inv · (world − origin). */
  inv: Float64Array;
}

export function prepareLayer(layer: RenderLayer): PreparedLayer {
  const v = layer.volume;
  const frame = v.frames[Math.min(Math.max(layer.timeStep, 0), v.frames.length - 1)] ?? new Float32Array(0);
  const window = Math.max(layer.levelWindow.window, 1e-9);
  const d = v.direction;
  const inv = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) inv[r * 3 + c] = d[c * 3 + r]! / v.spacing[r]!;
  const labelRgb = new Float32Array(256 * 3);
  for (let value = 1; value < 256; value++) {
    const c = value === 1 && layer.color ? layer.color : labelColor(value);
    labelRgb.set(c, value * 3);
  }
  return {
    volume: v,
    frame,
    opacity: Math.min(Math.max(layer.opacity, 0), 1),
    isLabel: v.isLabel,
    low: layer.levelWindow.level - window / 2,
    scale: 1 / window,
    tint: layer.color ?? [1, 1, 1],
    labelRgb,
    inv,
  };
}

/** Continuous index of a world point. */
export function toIndex(l: PreparedLayer, p: Vec3): Vec3 {
  const o = l.volume.origin;
  const x = p[0] - o[0];
  const y = p[1] - o[1];
  const z = p[2] - o[2];
  const m = l.inv;
  return [m[0]! * x + m[1]! * y + m[2]! * z, m[3]! * x + m[4]! * y + m[5]! * z, m[6]! * x + m[7]! * y + m[8]! * z];
}

/** Index-space change for a world-space step (no origin). */
export function toIndexDelta(l: PreparedLayer, d: Vec3): Vec3 {
  const m = l.inv;
  return [m[0]! * d[0] + m[1]! * d[1] + m[2]! * d[2], m[3]! * d[0] + m[4]! * d[1] + m[5]! * d[2], m[6]! * d[0] + m[7]! * d[1] + m[8]! * d[2]];
}

/**
 * Blends the layer's colour at continuous index (fi, fj, fk) over `rgb` at offset `o`.
 * Nearest neighbour, as MITK draws slices with texture interpolation off.
 */
export function blendSample(l: PreparedLayer, fi: number, fj: number, fk: number, rgb: Float32Array, o: number): void {
  const i = Math.round(fi);
  const j = Math.round(fj);
  const k = Math.round(fk);
  const dims = l.volume.dims;
  if (i < 0 || j < 0 || k < 0 || i >= dims[0] || j >= dims[1] || k >= dims[2]) return;
  const v = l.frame[i + dims[0] * (j + dims[1] * k)]!;
  const a = l.opacity;
  if (l.isLabel) {
    const value = Math.round(v);
    if (value <= 0) return;
    const t = Math.min(value, 255) * 3;
    rgb[o] = rgb[o]! * (1 - a) + l.labelRgb[t]! * a;
    rgb[o + 1] = rgb[o + 1]! * (1 - a) + l.labelRgb[t + 1]! * a;
    rgb[o + 2] = rgb[o + 2]! * (1 - a) + l.labelRgb[t + 2]! * a;
    return;
  }
  let g = (v - l.low) * l.scale;
  g = g < 0 ? 0 : g > 1 ? 1 : g;
  rgb[o] = rgb[o]! * (1 - a) + g * l.tint[0] * a;
  rgb[o + 1] = rgb[o + 1]! * (1 - a) + g * l.tint[1] * a;
  rgb[o + 2] = rgb[o + 2]! * (1 - a) + g * l.tint[2] * a;
}
