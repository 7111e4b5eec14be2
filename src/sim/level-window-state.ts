import { FloatLiteral, type Json } from '../volume/json-literals.js';

/**
 * A level window as MITK keeps it (`mitk::LevelWindow`): the current window bounds, the
 * default bounds, the range the window may move in, and two flags. Every setter keeps the
 * three consistent in MITK's order, so a value written through the API reads back as MITK
 * would store it (a window wider than the range widens the range, for example).
 */
export interface LevelWindowState {
  rangeMin: number;
  rangeMax: number;
  defaultLower: number;
  defaultUpper: number;
  lower: number;
  upper: number;
  fixed: boolean;
  floating: boolean;
}

/** MITK clamps window bounds to ±1e300 so that level ± window / 2 stays finite. */
const LIMIT = 1e300;

/** A new level window as MITK constructs one (default 127.5 / 255 in a -2048..4096 range). */
export function newLevelWindow(level = 127.5, window = 255): LevelWindowState {
  const s: LevelWindowState = {
    rangeMin: -2048,
    rangeMax: 4096,
    defaultLower: -2048,
    defaultUpper: 4096,
    lower: level - window / 2,
    upper: level + window / 2,
    fixed: false,
    floating: false,
  };
  setDefaultLevelWindow(s, level, window);
  setLevelWindow(s, level, window);
  return s;
}

export const levelOf = (s: LevelWindowState): number => (s.upper - s.lower) / 2 + s.lower;
export const windowOf = (s: LevelWindowState): number => s.upper - s.lower;

/** The range first, then the window kept inside it, as `LevelWindow::EnsureConsistency` does. */
function ensureConsistency(s: LevelWindowState): void {
  if (s.rangeMin > s.rangeMax) [s.rangeMin, s.rangeMax] = [s.rangeMax, s.rangeMin];
  if (s.rangeMin === s.rangeMax) s.rangeMin = s.rangeMax - 1;
  if (s.lower > s.upper) [s.lower, s.upper] = [s.upper, s.lower];
  if (s.lower <= s.rangeMin) s.lower = s.rangeMin;
  if (s.upper <= s.rangeMin) s.upper = s.rangeMin + 1;
  if (s.lower >= s.rangeMax) s.lower = s.rangeMax - 1;
  if (s.upper >= s.rangeMax) s.upper = s.rangeMax;
  if (s.lower === s.upper) {
    s.upper = Math.min(s.upper + 0.5, s.rangeMax);
    s.lower = Math.max(s.lower - 0.5, s.rangeMin);
  }
}

export function setRangeMinMax(s: LevelWindowState, min: number, max: number): void {
  if (s.fixed) return;
  s.rangeMin = min;
  s.rangeMax = max;
  ensureConsistency(s);
}

export function setDefaultBoundaries(s: LevelWindowState, low: number, up: number): void {
  if (s.fixed) return;
  s.defaultLower = Math.min(low, up);
  s.defaultUpper = Math.max(low, up);
  if (s.defaultLower === s.defaultUpper) s.defaultLower--;
  ensureConsistency(s);
}

export function setDefaultLevelWindow(s: LevelWindowState, level: number, window: number): void {
  setDefaultBoundaries(s, level - window / 2, level + window / 2);
}

/** With `expand` (MITK's default) a window reaching outside the range widens the range. */
export function setWindowBounds(s: LevelWindowState, lower: number, upper: number, expand = true): void {
  if (s.fixed) return;
  s.lower = Math.min(Math.max(lower, -LIMIT), LIMIT);
  s.upper = Math.min(Math.max(upper, -LIMIT), LIMIT);
  if (expand) {
    if (s.lower > s.upper) [s.lower, s.upper] = [s.upper, s.lower];
    if (s.lower < s.rangeMin) s.rangeMin = s.lower;
    if (s.upper > s.rangeMax) s.rangeMax = s.upper;
  }
  ensureConsistency(s);
}

export function setLevelWindow(s: LevelWindowState, level: number, window: number, expand = true): void {
  setWindowBounds(s, level - window / 2, level + window / 2, expand);
}

/**
 * MITK's JSON of a level window (`to_json(LevelWindow)`), keys in the order its JSON library
 * writes them (sorted), every number a float.
 */
export function levelWindowJson(s: LevelWindowState): Json {
  const f = (n: number): FloatLiteral => new FloatLiteral(n);
  return {
    CurrentRange: { Max: f(s.rangeMax), Min: f(s.rangeMin) },
    CurrentSettings: { Level: f(levelOf(s)), Window: f(windowOf(s)) },
    DefaultSettings: {
      Level: f((s.defaultUpper + s.defaultLower) / 2),
      Window: f(s.defaultUpper - s.defaultLower),
    },
    Fixed: s.fixed,
    IsFloatingImage: s.floating,
  };
}

const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof FloatLiteral);

const numberAt = (v: Json | undefined, key: string): number | undefined => {
  const n = isObject(v) ? v[key] : undefined;
  return typeof n === 'number' ? n : n instanceof FloatLiteral ? n.value : undefined;
};

const SHAPE =
  'a LevelWindowProperty value is {"CurrentRange": {"Min", "Max"}, "CurrentSettings": {"Level", "Window"}, "DefaultSettings": {"Level", "Window"}, "Fixed", "IsFloatingImage"}, every key present, as MITK writes it; read the property, change CurrentSettings and write the whole object back';

/**
 * A level window from MITK's JSON, applied to a new level window in `from_json`'s order:
 * range, default, current settings (widening the range if needed), then the two flags. MITK
 * reads every key, so a value missing one, or the short `{"level", "window"}` form, is refused.
 */
export function levelWindowFromJson(value: Json): { ok: true; value: LevelWindowState } | { ok: false; error: string } {
  if (!isObject(value)) return { ok: false, error: SHAPE };
  const min = numberAt(value.CurrentRange, 'Min');
  const max = numberAt(value.CurrentRange, 'Max');
  const defLevel = numberAt(value.DefaultSettings, 'Level');
  const defWindow = numberAt(value.DefaultSettings, 'Window');
  const level = numberAt(value.CurrentSettings, 'Level');
  const window = numberAt(value.CurrentSettings, 'Window');
  const numbers = [min, max, defLevel, defWindow, level, window];
  if (
    numbers.some((n) => n === undefined || !Number.isFinite(n)) ||
    typeof value.Fixed !== 'boolean' ||
    typeof value.IsFloatingImage !== 'boolean'
  )
    return { ok: false, error: SHAPE };
  const s = newLevelWindow();
  setRangeMinMax(s, min!, max!);
  setDefaultLevelWindow(s, defLevel!, defWindow!);
  setLevelWindow(s, level!, window!);
  s.fixed = value.Fixed;
  s.floating = value.IsFloatingImage;
  return { ok: true, value: s };
}
