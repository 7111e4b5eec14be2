import { WorkbenchUsageError } from './errors.js';
import { floatsIn } from './property-classes.js';

/**
 * MITK's level-window presets (Modules/Core/resource/mitkLevelWindowPresets.xml) under the
 * names MITK gives them, as level and window in the image's units (Hounsfield units for CT).
 */
export const LEVEL_WINDOW_PRESETS = {
  Air: { level: -700, window: 600 },
  Blood: { level: 100, window: 600 },
  Bones: { level: 500, window: 1000 },
  Fat: { level: -130, window: 200 },
  Heart: { level: 200, window: 600 },
  Intestine: { level: 30, window: 400 },
  Kidney: { level: 40, window: 300 },
  Liver: { level: 30, window: 400 },
  Lung: { level: -200, window: 500 },
  Mamma: { level: -90, window: 80 },
  Pancreas: { level: 40, window: 400 },
  Spleen: { level: 40, window: 50 },
  'Suprarenal Gland': { level: 12, window: 50 },
  Tumor: { level: 35, window: 60 },
  'Urinary Bladder': { level: 30, window: 50 },
  Water: { level: 0, window: 10 },
} as const satisfies Record<string, { level: number; window: number }>;

export type LevelWindowPreset = keyof typeof LEVEL_WINDOW_PRESETS;

export const isLevelWindowPreset = (name: string): name is LevelWindowPreset =>
  Object.prototype.hasOwnProperty.call(LEVEL_WINDOW_PRESETS, name);

/** A level and a window: the grey ramp runs from level - window / 2 (black) to level + window / 2 (white). */
export interface LevelAndWindow {
  level: number;
  window: number;
}

/** A node's level window as MITK keeps it (`LevelWindowProperty`). */
export interface LevelWindow extends LevelAndWindow {
  /** What a reset returns to. */
  default: LevelAndWindow;
  /** The range the window moves in (the level-window slider's ends). */
  range: { min: number; max: number };
  fixed: boolean;
  /** Whether the image holds floating-point values. */
  floating: boolean;
}

/** MITK's JSON of a level window (`to_json(LevelWindow)` in mitkLevelWindow.cpp). */
export interface LevelWindowJson {
  CurrentRange: { Min: number; Max: number };
  CurrentSettings: { Level: number; Window: number };
  DefaultSettings: { Level: number; Window: number };
  Fixed: boolean;
  IsFloatingImage: boolean;
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A level window from its property as read (`{type, value}`), or undefined when it is not one. */
export function levelWindowOf(property: unknown): { levelWindow: LevelWindow; json: LevelWindowJson } | undefined {
  const value = (property as { value?: unknown } | null)?.value as Partial<LevelWindowJson> | undefined;
  const cur = value?.CurrentSettings;
  const def = value?.DefaultSettings;
  const range = value?.CurrentRange;
  if (
    !value ||
    !cur ||
    !def ||
    !range ||
    ![cur.Level, cur.Window, def.Level, def.Window, range.Min, range.Max].every(num) ||
    typeof value.Fixed !== 'boolean' ||
    typeof value.IsFloatingImage !== 'boolean'
  )
    return undefined;
  const json = value as LevelWindowJson;
  return {
    json,
    levelWindow: {
      level: cur.Level,
      window: cur.Window,
      default: { level: def.Level, window: def.Window },
      range: { min: range.Min, max: range.Max },
      fixed: json.Fixed,
      floating: json.IsFloatingImage,
    },
  };
}

/** A preset name or a level and window, checked: the window must be a positive number. */
export function resolveLevelWindow(lw: LevelAndWindow | LevelWindowPreset): LevelAndWindow {
  if (typeof lw === 'string') {
    if (!isLevelWindowPreset(lw)) {
      throw new WorkbenchUsageError(
        'INVALID_ARGUMENT',
        `'${lw}' is not one of MITK's level-window presets (${Object.keys(LEVEL_WINDOW_PRESETS).join(', ')})`,
      );
    }
    return LEVEL_WINDOW_PRESETS[lw];
  }
  if (!num(lw.level) || !num(lw.window) || !(lw.window > 0)) {
    throw new WorkbenchUsageError(
      'INVALID_ARGUMENT',
      `a level window is a level and a window greater than 0, got ${JSON.stringify(lw)}`,
    );
  }
  return { level: lw.level, window: lw.window };
}

/**
 * The whole level window to write back with new current settings: MITK reads every key, so a
 * client changes a level window by sending all of it (the workbench widens the range when the
 * new window reaches outside it). Every number goes as a float.
 */
export function withCurrentSettings(json: LevelWindowJson, lw: LevelAndWindow): unknown {
  return {
    type: 'LevelWindowProperty',
    value: floatsIn({ ...json, CurrentSettings: { Level: lw.level, Window: lw.window } }),
  };
}
