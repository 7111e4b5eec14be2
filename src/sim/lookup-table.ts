import { MITK_RAMP_TABLES, rampTable, type RampTableName } from '../image/colour-ramp.js';
import { FloatLiteral, type Json } from '../volume/json-literals.js';

/**
 * A lookup table as MITK keeps one in a `LookupTableProperty`: a VTK lookup table, that is a
 * table of RGBA bytes with the HSV ramps it was built from and the value range it spans.
 */
export interface LookupTableState {
  numberOfColors: number;
  /** VTK's scale: 0 linear, 1 log10 (any other value maps linearly, off the fast path). */
  scale: number;
  /** VTK's ramp: 0 S-curve (VTK's default), 1 linear, 2 square root. */
  ramp: number;
  hueRange: [number, number];
  valueRange: [number, number];
  saturationRange: [number, number];
  alphaRange: [number, number];
  tableRange: [number, number];
  /** RGBA bytes, four per colour. */
  table: Uint8Array;
}

/** VTK's scale constants. */
export const SCALE_LINEAR = 0;
export const SCALE_LOG10 = 1;

/** More colours than MITK's largest table (the 65536 of its multi-label table) are refused. */
const MAX_COLORS = 65536;

/**
 * One of MITK's ramp tables as a `LookupTableProperty` holds it right after `SetType`: the
 * grey one is what the image mapper gives a new image; the rainbow one is what it draws with
 * when a node has no lookup table at all; the binary one is what a binary image is drawn with.
 */
export function mitkLookupTable(name: RampTableName): LookupTableState {
  const { ramp, tableRange } = MITK_RAMP_TABLES[name];
  return {
    numberOfColors: ramp.numberOfColors,
    scale: SCALE_LINEAR,
    ramp: ramp.ramp,
    hueRange: [...ramp.hueRange],
    valueRange: [...ramp.valueRange],
    saturationRange: [...ramp.saturationRange],
    alphaRange: [...ramp.alphaRange],
    tableRange: [...tableRange],
    table: rampTable(name),
  };
}

/** The table MITK's image mapper gives a new image (`LookupTable::GRAYSCALE`). */
export const grayscaleLookupTable = (): LookupTableState => mitkLookupTable('Grayscale');

/**
 * MITK's JSON of a lookup table (`LookupTableProperty::ToJSON`), keys sorted as its JSON
 * library writes them; table entries are the bytes over 255, as VTK gives them back.
 */
export function lookupTableJson(s: LookupTableState): Json {
  const f = (n: number): FloatLiteral => new FloatLiteral(n);
  const pair = (p: [number, number]): Json => [f(p[0]), f(p[1])];
  const table: Json[] = [];
  for (let i = 0; i < s.numberOfColors; i++) {
    const o = i * 4;
    table.push([f(s.table[o]! / 255), f(s.table[o + 1]! / 255), f(s.table[o + 2]! / 255), f(s.table[o + 3]! / 255)]);
  }
  return {
    AlphaRange: pair(s.alphaRange),
    HueRange: pair(s.hueRange),
    NumberOfColors: s.numberOfColors,
    Ramp: s.ramp,
    SaturationRange: pair(s.saturationRange),
    Scale: s.scale,
    Table: table,
    TableRange: pair(s.tableRange),
    ValueRange: pair(s.valueRange),
  };
}

const num = (v: Json | undefined): number | undefined =>
  typeof v === 'number' ? v : v instanceof FloatLiteral ? v.value : undefined;

function range(v: Json | undefined): [number, number] | undefined {
  if (!Array.isArray(v) || v.length !== 2) return undefined;
  const a = num(v[0]);
  const b = num(v[1]);
  return a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) ? [a, b] : undefined;
}

const SHAPE =
  'a LookupTableProperty value is {"NumberOfColors", "Scale", "Ramp", "HueRange", "ValueRange", "SaturationRange", "AlphaRange", "TableRange", "Table": [[r, g, b, a], ...]} as MITK writes it';

type Decoded = { ok: true; value: LookupTableState } | { ok: false; error: string };

/**
 * A lookup table from MITK's JSON, read as `LookupTableProperty::FromJSON` reads it. That code
 * sets the scale twice, the second time from "Ramp", and never sets the ramp: the stored table
 * has the scale the client sent as "Ramp" and VTK's default ramp (S-curve). A table range that
 * VTK refuses (max below min, or across zero on a log scale) leaves VTK's 0..1. Entries beyond
 * NumberOfColors are dropped, as VTK drops them; fewer entries than colours, or an entry
 * outside 0..1, is refused (MITK would keep uninitialised or wrapped bytes).
 */
export function lookupTableFromJson(value: Json): Decoded {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof FloatLiteral)
    return { ok: false, error: SHAPE };
  const n = num(value.NumberOfColors);
  const scale = num(value.Scale);
  const ramp = num(value.Ramp);
  const ranges = ['HueRange', 'ValueRange', 'SaturationRange', 'AlphaRange', 'TableRange'].map((k) => range(value[k]));
  if (
    n === undefined ||
    !Number.isInteger(n) ||
    n < 1 ||
    n > MAX_COLORS ||
    !Number.isInteger(scale) ||
    !Number.isInteger(ramp) ||
    ranges.some((r) => r === undefined) ||
    !Array.isArray(value.Table)
  )
    return { ok: false, error: `${SHAPE}; NumberOfColors is a whole number from 1 to ${MAX_COLORS}` };
  type Pair = [number, number];
  const [hue, val, sat, alpha, tableRange] = ranges as [Pair, Pair, Pair, Pair, Pair];
  if (value.Table.length < n)
    return { ok: false, error: `the Table has ${value.Table.length} entries for NumberOfColors ${n}` };
  const table = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    const entry = value.Table[i];
    const rgba = Array.isArray(entry) && entry.length === 4 ? entry.map(num) : [];
    if (rgba.length !== 4 || rgba.some((c) => c === undefined || !(c >= 0 && c <= 1)))
      return { ok: false, error: `Table entry ${i} must be [r, g, b, a], four numbers from 0 to 1` };
    // VTK stores each channel as a byte: value * 255 rounded half up.
    for (let c = 0; c < 4; c++) table[i * 4 + c] = Math.floor(rgba[c]! * 255 + 0.5);
  }
  const storedScale = ramp!;
  const [lo, hi] = tableRange;
  const refused = hi < lo || (storedScale === SCALE_LOG10 && ((lo > 0 && hi < 0) || (lo < 0 && hi > 0)));
  return {
    ok: true,
    value: {
      numberOfColors: n,
      scale: storedScale,
      ramp: 0,
      hueRange: hue,
      valueRange: val,
      saturationRange: sat,
      alphaRange: alpha,
      tableRange: refused ? [0, 1] : tableRange,
      table,
    },
  };
}
