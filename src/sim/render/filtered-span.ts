import { tableIndex } from './colour-table.js';
import type { PreparedLayer } from './layer-sampler.js';

/**
 * The filtered way of drawing a slice of an axis-aligned layer, for texture interpolation and
 * for reslice interpolation other than nearest. MITK reslices the image into a texture of one
 * texel per voxel of the slice (values taken between the two nearest slices with linear or
 * cubic reslicing, drawn here linearly for both), maps every texel through the colour table,
 * and the graphics card then blends the four nearest texels' colours bilinearly (clamped at
 * the edges) when texture interpolation is on, or shows the nearest texel when it is off.
 */
export function blendFiltered(
  l: PreparedLayer,
  f: [number, number, number],
  d: [number, number, number],
  sliceAxis: number,
  rgb: Float32Array,
  o: number,
  count: number,
): void {
  const dims = l.dims;
  const a = sliceAxis === 0 ? 1 : 0;
  const b = sliceAxis === 2 ? 1 : 2;
  const stride = [1, dims[0]!, dims[0]! * dims[1]!];
  const na = dims[a]!;
  const nb = dims[b]!;
  const ns = dims[sliceAxis]!;
  const colour = new Float64Array(4);
  const fs = f[sliceAxis]!;
  if (fs < -0.5 || fs >= ns - 0.5) return;
  // Slices: the nearest one, or the two around the plane with their weight.
  let s0 = Math.round(fs);
  let s1 = s0;
  let ws = 0;
  if (l.resliceLinear) {
    s0 = Math.max(0, Math.floor(fs));
    s1 = Math.min(ns - 1, s0 + 1);
    ws = Math.min(Math.max(fs - s0, 0), 1);
  }
  const base0 = s0 * stride[sliceAxis]!;
  const base1 = s1 * stride[sliceAxis]!;
  const texel = (ia: number, ib: number, weight: number): void => {
    const at = ia * stride[a]! + ib * stride[b]!;
    const v0 = l.frame[base0 + at]!;
    const v = ws === 0 ? v0 : v0 + (l.frame[base1 + at]! - v0) * ws;
    const t = tableIndex(l.lookup, v) * 4;
    for (let c = 0; c < 4; c++) colour[c] = colour[c]! + l.rgba[t + c]! * weight;
  };
  for (let c = 0; c < count; c++, o += 3) {
    const fa = f[a]! + d[a]! * c;
    const fb = f[b]! + d[b]! * c;
    if (fa < -0.5 || fa >= na - 0.5 || fb < -0.5 || fb >= nb - 0.5) continue;
    colour.fill(0);
    if (l.texture) {
      const a0 = Math.floor(fa);
      const b0 = Math.floor(fb);
      const wa = fa - a0;
      const wb = fb - b0;
      const ca0 = Math.max(a0, 0);
      const ca1 = Math.min(a0 + 1, na - 1);
      const cb0 = Math.max(b0, 0);
      const cb1 = Math.min(b0 + 1, nb - 1);
      texel(ca0, cb0, (1 - wa) * (1 - wb));
      texel(ca1, cb0, wa * (1 - wb));
      texel(ca0, cb1, (1 - wa) * wb);
      texel(ca1, cb1, wa * wb);
    } else texel(Math.round(fa), Math.round(fb), 1);
    const alpha = colour[3]! * l.opacity;
    if (!(alpha > 0)) continue;
    const keep = 1 - alpha;
    rgb[o] = rgb[o]! * keep + colour[0]! * l.tint[0] * alpha;
    rgb[o + 1] = rgb[o + 1]! * keep + colour[1]! * l.tint[1] * alpha;
    rgb[o + 2] = rgb[o + 2]! * keep + colour[2]! * l.tint[2] * alpha;
  }
}
