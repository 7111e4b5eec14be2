import { checkDimension, checkImage } from './render-error.js';
import type { RgbaImage } from './rgba.js';

/** The source pixels one output pixel mixes along one axis, with their weights (summing to 1). */
interface Taps {
  /** Number of taps of each output position. */
  count: Uint8Array;
  /** `maxTaps` slots per output position. */
  index: Int32Array;
  weight: Float64Array;
  maxTaps: number;
}

/**
 * Weights along one axis: each output position averages `n` bilinear samples spread evenly over
 * the source span it covers, `n` being the shrink factor rounded up (1 when enlarging). So a
 * strong reduction averages the whole area instead of skipping pixels, and an enlargement is
 * plain bilinear. Samples that share a source pixel are merged into one tap.
 */
function taps(source: number, target: number): Taps {
  const f = source / target;
  const n = Math.max(1, Math.ceil(f));
  const maxTaps = 2 * n;
  const count = new Uint8Array(target);
  const index = new Int32Array(target * maxTaps);
  const weight = new Float64Array(target * maxTaps);
  for (let t = 0; t < target; t++) {
    const base = t * maxTaps;
    let c = 0;
    const add = (i: number, w: number): void => {
      for (let k = base; k < base + c; k++) {
        if (index[k] === i) {
          weight[k]! += w;
          return;
        }
      }
      index[base + c] = i;
      weight[base + c] = w;
      c++;
    };
    for (let s = 0; s < n; s++) {
      const u = Math.min(Math.max((t + (s + 0.5) / n) * f - 0.5, 0), source - 1);
      const i0 = Math.floor(u);
      const w = u - i0;
      add(i0, (1 - w) / n);
      if (w > 0) add(i0 + 1, w / n);
    }
    count[t] = c;
  }
  return { count, index, weight, maxTaps };
}

/**
 * Scales to exactly width x height, ignoring the aspect ratio, as the workbench scales its
 * grabs. The filter is separable, so it runs as a horizontal pass into a float buffer and a
 * vertical pass out of it; with whole-number factors every weight is a power of two, so the
 * sums are exact and the result does not depend on the order of the passes.
 */
export function resizeImage(image: RgbaImage, width: number, height: number): RgbaImage {
  checkImage('image to resize', image);
  checkDimension('resize width', width);
  checkDimension('resize height', height);
  if (width === image.width && height === image.height) return { width, height, data: image.data.slice() };
  const { width: sw, height: sh, data: src } = image;

  const across = taps(sw, width);
  const rows = new Float32Array(width * sh * 4);
  for (let y = 0; y < sh; y++) {
    const from = y * sw * 4;
    for (let x = 0, o = y * width * 4; x < width; x++, o += 4) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let k = x * across.maxTaps, end = k + across.count[x]!; k < end; k++) {
        const p = from + across.index[k]! * 4;
        const w = across.weight[k]!;
        r += src[p]! * w;
        g += src[p + 1]! * w;
        b += src[p + 2]! * w;
        a += src[p + 3]! * w;
      }
      rows[o] = r;
      rows[o + 1] = g;
      rows[o + 2] = b;
      rows[o + 3] = a;
    }
  }

  const down = taps(sh, height);
  const out = new Uint8Array(width * height * 4);
  const stride = width * 4;
  const sum = new Float64Array(stride);
  for (let y = 0; y < height; y++) {
    sum.fill(0);
    for (let k = y * down.maxTaps, end = k + down.count[y]!; k < end; k++) {
      const w = down.weight[k]!;
      for (let c = 0, p = down.index[k]! * stride; c < stride; c++, p++) sum[c]! += rows[p]! * w;
    }
    for (let c = 0, o = y * stride; c < stride; c++, o++) out[o] = Math.round(sum[c]!);
  }
  return { width, height, data: out };
}
