import { labelsByValue, type Segmentation } from '../../volume/segmentation.js';
import type { RgbSamples, Vec3 } from '../../volume/volume.js';
import { entriesOf, greyColours, tableIndex, tableLookup, type TableLookup } from './colour-table.js';
import type { RenderLayer, Rgb } from './types.js';

/**
 * A layer ready to be sampled: everything that does not change from pixel to pixel is worked
 * out once, so the per-pixel work is a rounding, a bounds check and a table look-up.
 */
export interface PreparedLayer {
  /*
   * The volume's geometry in typed arrays of its own: volumes of different kinds are objects of
   * different shapes, and their arrays hold whole or fractional numbers, so a sampler reading
   * them through the volume would be compiled again for each kind it meets.
   */
  /** World position of voxel (0, 0, 0). */
  origin: Float64Array;
  /** Voxel counts along i, j, k. */
  dims: Int32Array;
  frame: Float32Array;
  /** The node's opacity; a label layer's alphas already include it. */
  opacity: number;
  tint: Rgb;
  /** How a grey image's value finds its colour entry. */
  lookup: TableLookup;
  /**
   * Per entry (the last one for NaN): the colour times tint and alpha (0-2), and the share of
   * what is below that stays (3), alpha being the entry's alpha times the opacity.
   */
  entries: Float32Array;
  /** Per entry: the table's RGBA over 255, for filtering between texels. */
  rgba: Float32Array;
  /** Texels are blended bilinearly (texture interpolation). */
  texture: boolean;
  /** Values are interpolated between slices (reslice interpolation other than nearest). */
  resliceLinear: boolean;
  /**
   * A segmentation group's colours: r, g, b, alpha per label value (value · 4), alpha being the
   * label's opacity times the node's, 0 for hidden labels and values without a label. Null for
   * a grey image.
   */
  labels: Float32Array | null;
  /** Row-major inverse direction scaled by 1/spacing: index = inv · (world − origin). */
  inv: Float64Array;
}

/**
 * The layers one node draws: one for an image; one per label group for a segmentation, in
 * group order, so later groups lie over earlier ones as MITK stacks them.
 */
export function prepareLayers(layer: RenderLayer): PreparedLayer[] {
  const v = layer.volume;
  const step = (frames: readonly Float32Array[]): Float32Array =>
    frames[Math.min(Math.max(layer.timeStep, 0), frames.length - 1)] ?? new Float32Array(0);
  const d = v.direction;
  const inv = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) inv[r * 3 + c] = d[c * 3 + r]! / v.spacing[r]!;
  const origin = Float64Array.from(v.origin);
  const dims = Int32Array.from(v.dims);
  const tint = layer.color ?? ([1, 1, 1] as Rgb);
  const lookup = tableLookup(layer.colours ?? greyColours(layer.levelWindow), v.componentType !== 'float64');
  const texture = layer.textureInterpolation === true;
  const resliceLinear = (layer.resliceInterpolation ?? 'nearest') !== 'nearest';
  // One object shape for every layer keeps the sampler's property reads monomorphic. A frame
  // shorter than its dimensions say would be read past its end; such a layer (or a NaN
  // opacity) is left out rather than drawn with garbage.
  const prepared = (frames: readonly Float32Array[], labels: Float32Array | null): PreparedLayer => {
    const frame = step(frames);
    const opacity =
      frame.length >= v.dims[0] * v.dims[1] * v.dims[2] && layer.opacity > 0 ? Math.min(layer.opacity, 1) : 0;
    const { entries, rgba } = entriesOf(layer.colours?.table ?? greyColours(layer.levelWindow).table, tint, opacity);
    return { origin, dims, frame, opacity, tint, lookup, entries, rgba, texture, resliceLinear, labels, inv };
  };
  const segmentation = v.segmentation;
  // A colour image (DICOM RGB) is drawn in its own colours through the label path: each voxel's
  // colour packed to 5-6-5 bits is its entry in a table of every such colour.
  if (!segmentation && v.rgb)
    return [prepared(v.rgb.map(packedColours), colourTable(Math.min(Math.max(layer.opacity, 0), 1)))];
  if (!segmentation) return [prepared(v.frames, null)];
  const labels = labelTable(segmentation, Math.min(Math.max(layer.opacity, 0), 1));
  return segmentation.groups.map((group) => prepared(group.frames, labels));
}

const tables = new WeakMap<Segmentation, { opacity: number; table: Float32Array }>();

const packed = new WeakMap<RgbSamples, Float32Array>();

/**
 * Interleaved RGB samples as 1 + 5-6-5 packed colours (0 stays 'nothing here' in the label
 * path); kept while the image lives. MITK's level window filter for colour
 * (`vtkMitkLevelWindowFilter`, its `RGBtoHSI`) clamps each sample to 0..255 before it draws, so
 * 16-bit colour shows its values above 255 as full intensity, not scaled down.
 */
function packedColours(rgb: RgbSamples): Float32Array {
  let out = packed.get(rgb);
  if (out !== undefined) return out;
  out = new Float32Array(rgb.length / 3);
  const byte = (v: number): number => (v > 255 ? 255 : v);
  for (let i = 0; i < out.length; i++)
    out[i] = 1 + ((byte(rgb[i * 3]!) >> 3) << 11) + ((byte(rgb[i * 3 + 1]!) >> 2) << 5) + (byte(rgb[i * 3 + 2]!) >> 3);
  packed.set(rgb, out);
  return out;
}

let colours: { opacity: number; table: Float32Array } | undefined;

/** Every 5-6-5 colour at an opacity, as a label table indexed by packed colour. */
function colourTable(opacity: number): Float32Array {
  if (colours?.opacity === opacity) return colours.table;
  const table = new Float32Array((65536 + 1) * 4);
  for (let c = 0; c < 65536; c++) {
    table[(c + 1) * 4] = ((c >> 11) & 31) / 31;
    table[(c + 1) * 4 + 1] = ((c >> 5) & 63) / 63;
    table[(c + 1) * 4 + 2] = (c & 31) / 31;
    table[(c + 1) * 4 + 3] = opacity;
  }
  colours = { opacity, table };
  return table;
}

/** The colour table of a segmentation at a node opacity; kept while the segmentation lives, as MITK keeps its lookup table. */
function labelTable(segmentation: Segmentation, opacity: number): Float32Array {
  const cached = tables.get(segmentation);
  if (cached?.opacity === opacity) return cached.table;
  const labels = labelsByValue(segmentation);
  const table = new Float32Array((Math.max(0, ...labels.keys()) + 1) * 4);
  for (const [value, label] of labels) {
    const alpha = label.visible ? Math.min(Math.max(label.opacity, 0), 1) * opacity : 0;
    table.set([label.color[0], label.color[1], label.color[2], Number.isFinite(alpha) ? alpha : 0], value * 4);
  }
  tables.set(segmentation, { opacity, table });
  return table;
}

/** Continuous index of a world point. */
export function toIndex(l: PreparedLayer, p: Vec3): Vec3 {
  const o = l.origin;
  const x = p[0] - o[0]!;
  const y = p[1] - o[1]!;
  const z = p[2] - o[2]!;
  const m = l.inv;
  return [m[0]! * x + m[1]! * y + m[2]! * z, m[3]! * x + m[4]! * y + m[5]! * z, m[6]! * x + m[7]! * y + m[8]! * z];
}

/** Index-space change for a world-space step (no origin). */
export function toIndexDelta(l: PreparedLayer, d: Vec3): Vec3 {
  const m = l.inv;
  return [
    m[0]! * d[0] + m[1]! * d[1] + m[2]! * d[2],
    m[3]! * d[0] + m[4]! * d[1] + m[5]! * d[2],
    m[6]! * d[0] + m[7]! * d[1] + m[8]! * d[2],
  ];
}

/**
 * Blends the layer's colour at world point `p` (x, y, z) over `rgb` at offset `o` (a 3D window's
 * ray hit). Nearest neighbour, as MITK draws slices with texture interpolation off.
 */
export function blendPoint(l: PreparedLayer, p: Float64Array, rgb: Float32Array, o: number): void {
  const org = l.origin;
  const dims = l.dims;
  const m = l.inv;
  const dx = p[0]! - org[0]!;
  const dy = p[1]! - org[1]!;
  const dz = p[2]! - org[2]!;
  const fi = m[0]! * dx + m[1]! * dy + m[2]! * dz;
  const fj = m[3]! * dx + m[4]! * dy + m[5]! * dz;
  const fk = m[6]! * dx + m[7]! * dy + m[8]! * dz;
  const nx = dims[0]!;
  const ny = dims[1]!;
  if (!(fi >= -0.5 && fi < nx - 0.5 && fj >= -0.5 && fj < ny - 0.5 && fk >= -0.5 && fk < dims[2]! - 0.5)) return;
  // Each rounded index truncated to an integer on its own: a rounding that gives -0 would
  // otherwise throw the compiled sampler away.
  if (!shade(l, (Math.round(fi) | 0) + nx * (Math.round(fj) | 0) + nx * ny * (Math.round(fk) | 0))) return;
  const keep = SHADE[3]!;
  rgb[o] = rgb[o]! * keep + SHADE[0]!;
  rgb[o + 1] = rgb[o + 1]! * keep + SHADE[1]!;
  rgb[o + 2] = rgb[o + 2]! * keep + SHADE[2]!;
}

/**
 * What `shade` works out: the voxel's colour already weighted by its alpha (0-2), and the share
 * of the colour beneath that stays (3). One buffer for the thread: the renderer is synchronous.
 */
const SHADE = new Float64Array(4);

/**
 * The colour of the voxel at offset `at` of layer `l`'s frame, into SHADE; false where the
 * layer leaves the pixel as it is. Label values are whole numbers (an integer index keeps the
 * look-up fast); 0, anything else and values without a visible label show what is below. It
 * takes the voxel's offset as a 32-bit integer, not its value: such a number passes to a call
 * as it is, while any other number is boxed, one allocation per call.
 */
function shade(l: PreparedLayer, at: number): boolean {
  const v = l.frame[at]!;
  const table = l.labels;
  if (table !== null) {
    const value = v | 0;
    const t = value * 4;
    const alpha = value === v && t > 0 && t < table.length ? table[t + 3]! : 0;
    if (!(alpha > 0)) return false;
    SHADE[0] = table[t]! * alpha;
    SHADE[1] = table[t + 1]! * alpha;
    SHADE[2] = table[t + 2]! * alpha;
    SHADE[3] = 1 - alpha;
    return true;
  }
  const e = l.entries;
  const t = tableIndex(l.lookup, v) * 4;
  const keep = e[t + 3]!;
  if (!(keep < 1)) return false;
  SHADE[0] = e[t]!;
  SHADE[1] = e[t + 1]!;
  SHADE[2] = e[t + 2]!;
  SHADE[3] = keep;
  return true;
}

/**
 * Blends `count` samples along a straight line in index space, starting at (fi, fj, fk) and
 * stepping by (di, dj, dk), over consecutive pixels of `rgb` from offset `o`. This is the
 * 2D windows' inner loop, so it is written flat: locals only, no allocation, and the colour of
 * a voxel is worked out once for the run of pixels that shows it.
 * A sample is inside the volume when its rounded index is: Math.round(f) lies in [0, n) exactly
 * when f lies in [-0.5, n - 0.5).
 */
export function blendSpan(
  l: PreparedLayer,
  fi: number,
  fj: number,
  fk: number,
  di: number,
  dj: number,
  dk: number,
  rgb: Float32Array,
  o: number,
  count: number,
): void {
  // Indexed reads, not destructuring: a destructured array allocates an iterator wherever the
  // optimiser does not remove it.
  const dims = l.dims;
  const nx = dims[0]!;
  const ny = dims[1]!;
  const nz = dims[2]!;
  const nxy = nx * ny;
  // Along a row of a standard view of an axis-aligned image only one index moves: the other two
  // are checked and folded into a base offset once.
  const moving = (di !== 0 ? 1 : 0) + (dj !== 0 ? 1 : 0) + (dk !== 0 ? 1 : 0);
  if (moving <= 1) {
    let f = fi;
    let d = di;
    let n = nx;
    let stride = 1;
    if (dj !== 0) {
      f = fj;
      d = dj;
      n = ny;
      stride = nx;
    } else if (dk !== 0) {
      f = fk;
      d = dk;
      n = nz;
      stride = nxy;
    }
    const fixedOk =
      (stride === 1 || (fi >= -0.5 && fi < nx - 0.5)) &&
      (stride === nx || (fj >= -0.5 && fj < ny - 0.5)) &&
      (stride === nxy || (fk >= -0.5 && fk < nz - 0.5));
    if (!fixedOk) return;
    const base =
      (stride === 1 ? 0 : Math.round(fi)) +
      (stride === nx ? 0 : nx * Math.round(fj)) +
      (stride === nxy ? 0 : nxy * Math.round(fk));
    blendLine(l, f, d, n - 0.5, base, stride, rgb, o, count);
    return;
  }
  const hi = nx - 0.5;
  const hj = ny - 0.5;
  const hk = nz - 0.5;
  for (let c = 0; c < count; c++, o += 3, fi += di, fj += dj, fk += dk) {
    if (fi < -0.5 || fj < -0.5 || fk < -0.5 || fi >= hi || fj >= hj || fk >= hk) continue;
    blendLine(l, 0, 0, 1, Math.round(fi) + nx * Math.round(fj) + nxy * Math.round(fk), 1, rgb, o, 1);
  }
}

/**
 * Blends voxels base + stride·round(f + c·d), for c < count, where f stays in [-0.5, limit).
 * Pixels come in runs that show the same voxel: its colour is worked out once, and the run
 * goes on while f stays within half a voxel of it (Math.round(f) = q exactly when
 * q - 0.5 <= f < q + 0.5), so there is no rounding per pixel.
 */
function blendLine(
  l: PreparedLayer,
  f: number,
  d: number,
  limit: number,
  base: number,
  stride: number,
  rgb: Float32Array,
  o: number,
  count: number,
): void {
  let c = 0;
  while (c < count) {
    if (f < -0.5 || f >= limit) {
      c++;
      o += 3;
      f += d;
      continue;
    }
    const q = Math.round(f);
    const lo = q - 0.5;
    const hi = q + 0.5;
    if (!shade(l, (base + stride * q) | 0)) {
      do {
        c++;
        o += 3;
        f += d;
      } while (c < count && f >= lo && f < hi);
      continue;
    }
    const c0 = SHADE[0]!;
    const c1 = SHADE[1]!;
    const c2 = SHADE[2]!;
    const keep = SHADE[3]!;
    do {
      rgb[o] = rgb[o]! * keep + c0;
      rgb[o + 1] = rgb[o + 1]! * keep + c1;
      rgb[o + 2] = rgb[o + 2]! * keep + c2;
      c++;
      o += 3;
      f += d;
    } while (c < count && f >= lo && f < hi);
  }
}
