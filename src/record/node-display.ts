import type { WorkbenchClient } from '../client/index.js';
import { levelWindowOf } from '../client/level-window.js';
import { colormapOf, lookupTableOf, type Colormap } from '../client/lookup-tables.js';

/* How a recorded node is drawn: the display properties a load step gives back. */

const DEFAULT_OPACITY = 1;

export interface Display {
  visible: boolean;
  opacity: number;
  /** Absent when the node has no colour of its own. */
  color?: [number, number, number];
  layer?: number;
  /** What a fresh workbench gives the same data: MITK's image mapper defaults by kind. */
  defaults: { opacity: number; color: readonly number[] | undefined };
  /** An image's level window and how it is drawn; absent for other data. */
  image?: ImageDisplay;
}

interface ImageDisplay {
  level: number;
  window: number;
  /** The level window a fresh workbench computes from the data. */
  defaultLevel: number;
  defaultWindow: number;
  colormap: Colormap | null;
  mode: string | null;
  /** The table as read, for a table that is none of the colour maps. */
  table: unknown;
  texture: boolean;
  reslice: string | null;
}

const DISPLAY_KEYS = [
  'visible',
  'opacity',
  'color',
  'layer',
  'binary',
  'levelwindow',
  'LookupTable',
  'Image Rendering.Mode',
  'texture interpolation',
  'reslice interpolation',
];

/** A node's own display properties (a colour may come as its value or as `{type, value}`). */
export async function displayOf(client: WorkbenchClient, uid: string): Promise<Display> {
  const p = await client.properties.list(uid, { names: DISPLAY_KEYS }).catch(() => ({}) as Record<string, unknown>);
  const color = colourOf(p.color);
  const binary = p.binary === true;
  return {
    visible: p.visible !== false,
    opacity: typeof p.opacity === 'number' ? p.opacity : DEFAULT_OPACITY,
    ...(color ? { color } : {}),
    ...(typeof p.layer === 'number' ? { layer: p.layer } : {}),
    defaults: binary ? { opacity: 0.3, color: [1, 0, 0] } : { opacity: DEFAULT_OPACITY, color: [1, 1, 1] },
    ...imageOf(p),
  };
}

function imageOf(p: Record<string, unknown>): { image?: ImageDisplay } {
  const lw = levelWindowOf(p.levelwindow)?.levelWindow;
  const table = lookupTableOf(p.LookupTable);
  if (!lw || !table) return {};
  const mode = (p['Image Rendering.Mode'] as { value?: unknown } | undefined)?.value;
  const reslice = (p['reslice interpolation'] as { value?: unknown } | undefined)?.value;
  return {
    image: {
      level: lw.level,
      window: lw.window,
      defaultLevel: lw.default.level,
      defaultWindow: lw.default.window,
      colormap: colormapOf(table),
      mode: typeof mode === 'string' ? mode : null,
      table: p.LookupTable,
      texture: p['texture interpolation'] === true,
      reslice: typeof reslice === 'string' ? reslice : null,
    },
  };
}

const DEFAULT_MODE = 'LookupTable_LevelWindow_Color';

/**
 * The load fields that draw an image as it was: its level window unless it is still the one
 * the data gives, its colour map (a table that is none of them, or another rendering mode,
 * as properties), its interpolation unless it is the default.
 */
export function imageFields(image: ImageDisplay | undefined): string[] {
  if (!image) return [];
  const out: string[] = [];
  if (!sameNumbers([image.level, image.window], [image.defaultLevel, image.defaultWindow]))
    out.push(`level_window: { level: ${num(image.level)}, window: ${num(image.window)} }`);
  const properties: string[] = [];
  if (image.colormap !== null && image.mode === DEFAULT_MODE) {
    if (image.colormap !== 'Grayscale') out.push(`colormap: ${quote(image.colormap)}`);
  } else {
    if (image.colormap !== 'Grayscale') properties.push(`LookupTable: ${tableJson(image.table)}`);
    if (image.mode !== null && image.mode !== DEFAULT_MODE)
      properties.push(
        `"Image Rendering.Mode": ${JSON.stringify({ type: 'RenderingModeProperty', value: image.mode })}`,
      );
  }
  const reslice = image.reslice?.toLowerCase();
  if (image.texture || (reslice !== undefined && reslice !== 'nearest'))
    out.push(`interpolation: { texture: ${String(image.texture)}${reslice ? `, reslice: ${reslice}` : ''} }`);
  if (properties.length > 0) out.push(`properties: { ${properties.join(', ')} }`);
  return out;
}

/**
 * A table of one's own as JSON. The workbench reads its scale from "Ramp" (MITK's
 * LookupTableProperty::FromJSON), so the recorded scale goes there: the replayed table maps
 * values on the same scale.
 */
function tableJson(property: unknown): string {
  const value = (property as { value?: Record<string, unknown> } | null)?.value ?? {};
  return JSON.stringify({ type: 'LookupTableProperty', value: { ...value, Ramp: value.Scale ?? 0 } });
}

/** The level window one window shows for a node: its own, else the node's. */
export async function windowLevelWindow(
  client: WorkbenchClient,
  uid: string,
  context: string,
): Promise<{ level: number; window: number } | undefined> {
  return client.display.levelWindow(uid, { context }).catch(() => undefined);
}

function colourOf(value: unknown): [number, number, number] | undefined {
  const raw =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { value?: unknown }).value : value;
  return Array.isArray(raw) && raw.length === 3 && raw.every((c) => typeof c === 'number')
    ? (raw as [number, number, number])
    : undefined;
}

export const sameNumbers = (a: readonly number[], b: readonly number[] | undefined): boolean =>
  b !== undefined && a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) <= 1e-9 * Math.max(1, Math.abs(x)));

/** Numbers as JavaScript writes them: the shortest text that reads back to the same double. */
const num = (n: number): string => String(n);
const quote = (s: string): string => JSON.stringify(s);
