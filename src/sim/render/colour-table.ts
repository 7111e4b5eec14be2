import { rampTable } from '../../image/colour-ramp.js';
import type { LayerColours, Rgb } from './types.js';

/**
 * How one layer finds a value's entry in its colour table, worked out once per drawing. The
 * three ways are those of MITK's `vtkMitkLevelWindowFilter`: its own fast map for a linear
 * table (single-precision scale and bias, plus one half, truncated, clamped to the table), and
 * VTK's `vtkLookupTable::MapValue` for the others (truncated, out-of-range values to the end
 * entries, NaN to VTK's NaN colour, a log10 table on log values).
 */
export interface TableLookup {
  /** 0 rounded (fast), 1 linear, 2 log10. */
  kind: number;
  /** Number of colours; entry `n` is the NaN colour. */
  n: number;
  /** Fast map: index = trunc(value * scale + bias), in single precision unless `single` is false. */
  fastScale: number;
  fastBias: number;
  single: boolean;
  /** VTK's map: the range in (log) value space, and its shift and scale. */
  lo: number;
  hi: number;
  shift: number;
  scale: number;
  /** The table's range as given (a log table applies its log to values with it). */
  tableLo: number;
  tableHi: number;
}

/** VTK's NaN colour (0.5, 0, 0, 1) as bytes. */
export const NAN_RGBA: readonly number[] = [128, 0, 0, 255];

const DBL_MIN = 2.2250738585072014e-308;

export function tableLookup(colours: LayerColours, single: boolean): TableLookup {
  const n = colours.table.length / 4;
  const [lo, hi] = colours.range;
  const out: TableLookup = {
    kind: colours.lookup === 'rounded' ? 0 : colours.lookup === 'linear' ? 1 : 2,
    n,
    fastScale: 0,
    fastBias: 0,
    single,
    lo,
    hi,
    shift: 0,
    scale: 0,
    tableLo: lo,
    tableHi: hi,
  };
  if (out.kind === 0) {
    // float scale = N / (hi - lo); float bias = -lo * scale; bias += 0.5f
    out.fastScale = Math.fround(hi - lo > 0 ? n / (hi - lo) : 0);
    out.fastBias = Math.fround(Math.fround(-lo * out.fastScale) + 0.5);
    return out;
  }
  if (out.kind === 2) [out.lo, out.hi] = logRange(lo, hi);
  out.shift = -out.lo;
  out.scale = out.hi - out.lo < DBL_MIN * n ? 0 : n / (out.hi - out.lo);
  return out;
}

/** The entry of value `v`: 0 to n - 1, or n for VTK's NaN colour. */
export function tableIndex(t: TableLookup, v: number): number {
  if (t.kind === 0) {
    const x = t.single ? Math.fround(Math.fround(v * t.fastScale) + t.fastBias) : v * t.fastScale + t.fastBias;
    // A NaN compares false everywhere and lands on entry 0, as the C++ cast and clamp do.
    return x >= 0 ? (x < t.n ? x | 0 : t.n - 1) : 0;
  }
  if (v !== v) return t.n;
  const w = t.kind === 2 ? logScale(v, t) : v;
  if (w < t.lo) return 0;
  if (w > t.hi) return t.n - 1;
  const i = Math.trunc((w + t.shift) * t.scale);
  return i >= t.n ? t.n - 1 : i;
}

/** VTK's log range: a range through zero is cut at a millionth of its larger end. */
function logRange(lo: number, hi: number): [number, number] {
  let rmin = lo;
  let rmax = hi;
  if ((rmin <= 0 && rmax >= 0) || (rmin >= 0 && rmax <= 0)) {
    if (Math.abs(rmax) >= Math.abs(rmin)) rmin = rmax * 1e-6;
    else rmax = rmin * 1e-6;
    if (rmax === 0) rmax = rmin < 0 ? -DBL_MIN : DBL_MIN;
    if (rmin === 0) rmin = rmax < 0 ? -DBL_MIN : DBL_MIN;
  }
  return rmax < 0 ? [-Math.log10(-rmin), -Math.log10(-rmax)] : [Math.log10(rmin), Math.log10(rmax)];
}

/** VTK's log of a value against a table range; values on the wrong side of zero go to an end. */
function logScale(v: number, t: TableLookup): number {
  if (t.tableLo < 0) {
    if (v < 0) return -Math.log10(-v);
    return t.tableLo > t.tableHi ? t.lo : t.hi;
  }
  if (v > 0) return Math.log10(v);
  return t.tableLo <= t.tableHi ? t.lo : t.hi;
}

/** MITK's default table: 256 greys, entry i being (i, i, i, 255). */
const GREYS = rampTable('Grayscale');

/** The default colours: the grey table spread over the level window's bounds, mapped the fast way. */
export function greyColours(lw: { level: number; window: number }): LayerColours {
  return { table: GREYS, range: [lw.level - lw.window / 2, lw.level + lw.window / 2], lookup: 'rounded' };
}

export function entriesOf(
  table: Uint8Array,
  tint: Rgb,
  opacity: number,
): { entries: Float32Array; rgba: Float32Array } {
  const n = table.length / 4;
  const rgba = new Float32Array((n + 1) * 4);
  for (let i = 0; i < n * 4; i++) rgba[i] = table[i]! / 255;
  for (let c = 0; c < 4; c++) rgba[n * 4 + c] = NAN_RGBA[c]! / 255;
  const entries = new Float32Array((n + 1) * 4);
  for (let i = 0; i <= n; i++) {
    const o = i * 4;
    const alpha = rgba[o + 3]! * opacity;
    entries[o] = rgba[o]! * tint[0] * alpha;
    entries[o + 1] = rgba[o + 1]! * tint[1] * alpha;
    entries[o + 2] = rgba[o + 2]! * tint[2] * alpha;
    entries[o + 3] = 1 - alpha;
  }
  return { entries, rgba };
}
