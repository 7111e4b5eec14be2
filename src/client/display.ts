import { WorkbenchApiError, WorkbenchUsageError } from './errors.js';
import { JsonFloat } from './json-body.js';
import {
  levelWindowOf,
  resolveLevelWindow,
  withCurrentSettings,
  type LevelAndWindow,
  type LevelWindow,
  type LevelWindowPreset,
} from './level-window.js';
import {
  colormapOf,
  colormapProperty,
  isColormap,
  lookupTableOf,
  type Colormap,
  type LookupTableColours,
} from './lookup-tables.js';
import type { PatchResult, Properties, PropertyOptions, PropertyValue } from './properties.js';
import { encodePropertyValue, propertyKeyProblem } from './property-classes.js';

export type ResliceInterpolation = 'nearest' | 'linear' | 'cubic';

export interface InterpolationSettings {
  /** Bilinear filtering of the slice when it is magnified (MITK's `texture interpolation`). */
  texture?: boolean;
  /** How values are taken between voxels when the image is resliced (`reslice interpolation`). */
  reslice?: ResliceInterpolation;
}

/** How a binary image is drawn as an outline instead of a filled area (MITK's `outline …` properties). */
export interface OutlineSettings {
  enabled?: boolean;
  /** Line width in screen pixels. */
  width?: number;
  shadow?: boolean;
  shadowColor?: [number, number, number];
  /** The shadow's width as a multiple of the line width. */
  shadowWidth?: number;
}

/**
 * What a property write did. `kept` lists the properties the workbench kept at their old value
 * although it answered success: MITK ignores a value whose class differs from the stored one.
 */
export interface PropertyWriteResult extends PatchResult {
  kept: Array<{ property: string; sent: unknown; stored: unknown }>;
}

export interface ColormapState {
  /** The colour map the table is, or null for another table. */
  name: Colormap | null;
  /** The node's `Image Rendering.Mode`, when it has one. */
  mode: string | null;
  colours: LookupTableColours;
}

const RESLICE_NAMES: Record<ResliceInterpolation, string> = { nearest: 'Nearest', linear: 'Linear', cubic: 'Cubic' };

/**
 * The display properties a figure needs, each in the form MITK keeps it: a node's level window
 * (read, changed and written back whole), colour map, interpolation, outline, and any other
 * property sent so that it keeps its class. With `context`, a value applies to one render
 * window (MITK keeps them per renderer).
 */
export class Display {
  constructor(private readonly properties: Properties) {}

  async levelWindow(uid: string, opts: PropertyOptions = {}): Promise<LevelWindow> {
    return (await this.#levelWindow(uid, opts)).levelWindow;
  }

  /**
   * Sets the current level and window (or one of MITK's presets) and returns the level window
   * as the workbench then holds it (its range widened if the window reaches beyond it).
   */
  async setLevelWindow(
    uid: string,
    lw: LevelAndWindow | LevelWindowPreset,
    opts: PropertyOptions = {},
  ): Promise<LevelWindow> {
    const wanted = resolveLevelWindow(lw);
    const { json } = await this.#levelWindow(uid, opts);
    await this.properties.set(uid, 'levelwindow', withCurrentSettings(json, wanted), opts);
    return (await this.#levelWindow(uid, opts)).levelWindow;
  }

  /** The node's lookup table and which colour map it is. */
  async colormap(uid: string, opts: PropertyOptions = {}): Promise<ColormapState> {
    const property = await readWithFallback(this.properties, uid, 'LookupTable', opts).catch((err: unknown) =>
      noImage(uid, 'LookupTable', err),
    );
    const colours = lookupTableOf(property);
    if (!colours) throw unexpected(uid, 'LookupTable', 'a LookupTableProperty', property);
    const mode = await readWithFallback(this.properties, uid, 'Image Rendering.Mode', opts).catch((err: unknown) => {
      if (err instanceof WorkbenchApiError && err.code === 'PROPERTY_NOT_FOUND') return null;
      throw err;
    });
    const modeName = (mode as { value?: unknown } | null)?.value;
    return { name: colormapOf(colours), mode: typeof modeName === 'string' ? modeName : null, colours };
  }

  /**
   * Sets a colour map: MITK's table for it, spread over the level window
   * (`Image Rendering.Mode` LookupTable_LevelWindow_Color).
   */
  async setColormap(uid: string, name: Colormap, opts: PropertyOptions = {}): Promise<PropertyWriteResult> {
    if (!isColormap(name))
      throw new WorkbenchUsageError('INVALID_ARGUMENT', `'${String(name)}' is not one of the colour maps`);
    return this.#write(
      uid,
      {
        LookupTable: colormapProperty(name),
        'Image Rendering.Mode': { type: 'RenderingModeProperty', value: 'LookupTable_LevelWindow_Color' },
      },
      opts,
    );
  }

  async setInterpolation(
    uid: string,
    s: InterpolationSettings,
    opts: PropertyOptions = {},
  ): Promise<PropertyWriteResult> {
    const values: Record<string, unknown> = {};
    if (s.texture !== undefined) values['texture interpolation'] = s.texture;
    if (s.reslice !== undefined) {
      const name = RESLICE_NAMES[s.reslice];
      if (name === undefined)
        throw new WorkbenchUsageError(
          'INVALID_ARGUMENT',
          `reslice is nearest, linear or cubic, got '${String(s.reslice)}'`,
        );
      values['reslice interpolation'] = { type: 'VtkResliceInterpolationProperty', value: name };
    }
    return this.setProperties(uid, values, opts);
  }

  async setOutline(uid: string, s: OutlineSettings, opts: PropertyOptions = {}): Promise<PropertyWriteResult> {
    const values: Record<string, unknown> = {};
    if (s.enabled !== undefined) values['outline binary'] = s.enabled;
    if (s.width !== undefined) values['outline width'] = s.width;
    if (s.shadow !== undefined) values['outline binary shadow'] = s.shadow;
    if (s.shadowColor !== undefined) values['outline binary shadow color'] = s.shadowColor;
    if (s.shadowWidth !== undefined) values['outline shadow width'] = s.shadowWidth;
    return this.setProperties(uid, values, opts);
  }

  /**
   * Sets properties in one PATCH, each sent so that it keeps its class (see
   * `encodePropertyValue`), then reads the simple ones back: a value the workbench kept at its
   * old one (another class was already stored under the key) is listed in `kept`.
   */
  async setProperties(
    uid: string,
    values: Record<string, unknown>,
    opts: PropertyOptions = {},
  ): Promise<PropertyWriteResult> {
    const wire: Record<string, PropertyValue> = {};
    for (const [key, value] of Object.entries(values)) {
      const keyProblem = propertyKeyProblem(key);
      if (keyProblem !== undefined)
        throw new WorkbenchUsageError('INVALID_ARGUMENT', `property '${key}': ${keyProblem}`);
      const encoded = encodePropertyValue(key, value);
      if (!encoded.ok) throw new WorkbenchUsageError('INVALID_ARGUMENT', `property '${key}': ${encoded.problem}`);
      wire[key] = encoded.wire;
    }
    return this.#write(uid, wire, opts);
  }

  async #write(uid: string, wire: Record<string, PropertyValue>, opts: PropertyOptions): Promise<PropertyWriteResult> {
    const result = await this.properties.patch(uid, wire, opts);
    const checked = Object.keys(wire).filter((k) => result.updated.includes(k) && comparable(wire[k]) !== undefined);
    const kept: PropertyWriteResult['kept'] = [];
    if (checked.length > 0) {
      const stored = await this.properties.list(uid, { ...opts, names: checked });
      for (const key of checked) {
        const sent = comparable(wire[key]);
        const now = comparable(stored[key]);
        if (!sameValue(sent, now)) kept.push({ property: key, sent, stored: now });
      }
    }
    return { ...result, kept };
  }

  async #levelWindow(uid: string, opts: PropertyOptions) {
    const property = await readWithFallback(this.properties, uid, 'levelwindow', opts).catch((err: unknown) =>
      noImage(uid, 'levelwindow', err),
    );
    const parsed = levelWindowOf(property);
    if (!parsed) throw unexpected(uid, 'levelwindow', 'a LevelWindowProperty in MITK’s JSON', property);
    return parsed;
  }
}

/**
 * A property as a window sees it: its own value, else the node's. MITK answers a read in a
 * context with that context's own properties only; a value set for every window is then read
 * without the context.
 */
async function readWithFallback(properties: Properties, uid: string, key: string, opts: PropertyOptions) {
  try {
    return await properties.get(uid, key, opts);
  } catch (err) {
    if (opts.context !== undefined && err instanceof WorkbenchApiError && err.code === 'PROPERTY_NOT_FOUND') {
      const { context: _context, ...rest } = opts;
      return properties.get(uid, key, rest);
    }
    throw err;
  }
}

function unexpected(uid: string, key: string, what: string, got: unknown): WorkbenchUsageError {
  return new WorkbenchUsageError(
    'NOT_APPLICABLE',
    `node ${uid}: '${key}' is not ${what}: ${JSON.stringify(got)?.slice(0, 200)}`,
  );
}

/** A node without the property: only a node holding an image has these. */
function noImage(uid: string, key: string, err: unknown): never {
  if (err instanceof WorkbenchApiError && err.code === 'PROPERTY_NOT_FOUND') {
    throw new WorkbenchUsageError(
      'NOT_APPLICABLE',
      `node ${uid} has no '${key}' property: only a node holding an image has one (load the image first)`,
    );
  }
  throw err;
}

/**
 * The plain value of a simple property (scalar, colour, enumeration name) for comparison, or
 * undefined for a value that reads back in another form than it was sent (a level window
 * widens its range, a table is rounded to bytes).
 */
function comparable(value: unknown): unknown {
  if (value instanceof JsonFloat) return value.value;
  if (typeof value !== 'object' || value === null) return value;
  const { type, value: inner } = value as { type?: unknown; value?: unknown };
  if (typeof type !== 'string') return undefined;
  if (type === 'ColorProperty' && Array.isArray(inner)) return inner.map(comparable);
  if (typeof inner === 'string' || typeof inner === 'boolean') return inner;
  if (inner instanceof JsonFloat || typeof inner === 'number') return comparable(inner);
  return undefined;
}

/** Equal, numbers within what a single-precision float keeps of them. */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  return a === b;
}
