import type { DataStoreView, PropertyValue, SimNode } from '../datastore-types.js';
import { levelOf, newLevelWindow, windowOf, type LevelWindowState } from '../level-window-state.js';
import { mitkLookupTable, SCALE_LINEAR, SCALE_LOG10, type LookupTableState } from '../lookup-table.js';
import type { LayerColours, RenderLayer, Rgb } from '../render/types.js';
import type { Volume } from '../../volume/volume.js';
import { transferFunctionColours } from '../transfer-function.js';
import type { TimeNavigation } from './time.js';

/**
 * A node-scope property as one render window sees it. A window may answer to several context
 * names (a StdMulti window to its URL id and to its renderer name); the first one with its own
 * value wins, then the node's default-context value.
 */
export function windowProperty(
  store: DataStoreView,
  node: SimNode,
  key: string,
  contexts: readonly string[],
): PropertyValue | undefined {
  for (const context of contexts) {
    const own = node.contextProperties.get(context)?.get(key);
    if (own !== undefined) return own;
  }
  return store.property(node, key);
}

const numberOf = (p: PropertyValue | undefined): number | undefined =>
  p && typeof p.value === 'number' && Number.isFinite(p.value) ? p.value : undefined;

function colorOf(p: PropertyValue | undefined): Rgb | null {
  const v = p?.value;
  if (!Array.isArray(v) || v.length !== 3) return null;
  const [r, g, b] = v as unknown[];
  return typeof r === 'number' && typeof g === 'number' && typeof b === 'number' ? [r, g, b] : null;
}

function ofType<T>(p: PropertyValue | undefined, type: string): T | undefined {
  return p?.type === type ? (p.value as T) : undefined;
}

/** MITK's rainbow table: what the image mapper draws with when a node has no lookup table. */
const RAINBOW = mitkLookupTable('Legacy Rainbow Color');
/** What a binary image is always drawn with: grey, value 0 transparent, over 0..1. */
const BINARY = mitkLookupTable('Legacy Binary');
/** A node without a level window is drawn through a new one (127.5 / 255), as in MITK. */
const NO_LEVEL_WINDOW = newLevelWindow();

/**
 * An image's colours in one window, as `ImageVtkMapper2D::ApplyRenderingMode` chooses them: a
 * binary image through the binary table over 0..1; otherwise by `Image Rendering.Mode`, the
 * node's lookup table spread over the level window's bounds, or over the table's own range
 * (`LookupTable_Color`), or its transfer function (see transfer-function.ts). Without a
 * transfer function those modes draw nothing (MITK logs an error and keeps what it had).
 */
function coloursOf(property: (key: string) => PropertyValue | undefined, lw: LevelWindowState): LayerColours | null {
  const binary = ofType<boolean>(property('binary'), 'BoolProperty') === true;
  if (binary) return coloursFrom(BINARY, BINARY.tableRange);
  const mode =
    ofType<string>(property('Image Rendering.Mode'), 'RenderingModeProperty') ?? 'LookupTable_LevelWindow_Color';
  if (mode.startsWith('ColorTransferFunction'))
    return transferFunctionColours(ofType(property('Image Rendering.Transfer Function'), 'TransferFunctionProperty'));
  const lut = ofType<LookupTableState>(property('LookupTable'), 'LookupTableProperty') ?? RAINBOW;
  return coloursFrom(lut, mode === 'LookupTable_Color' ? lut.tableRange : [lw.lower, lw.upper]);
}

function coloursFrom(lut: LookupTableState, range: readonly [number, number]): LayerColours {
  const lookup = lut.scale === SCALE_LINEAR ? 'rounded' : lut.scale === SCALE_LOG10 ? 'log' : 'linear';
  return { table: lut.table, range: [range[0], range[1]], lookup };
}

/** Reslicing is nearest for an image of one slice, whatever the property says (as in MITK). */
function resliceOf(p: PropertyValue | undefined, volume: Volume): RenderLayer['resliceInterpolation'] {
  const mode = ofType<string>(p, 'VtkResliceInterpolationProperty');
  if (volume.dims[2] <= 1 || mode === undefined) return 'nearest';
  return mode === 'Linear' ? 'linear' : mode === 'Cubic' ? 'cubic' : 'nearest';
}

/** A node without a `visible` property is shown, as in MITK. */
export function isVisible(store: DataStoreView, node: SimNode, contexts: readonly string[] = []): boolean {
  const p = windowProperty(store, node, 'visible', contexts);
  return typeof p?.value === 'boolean' ? p.value : true;
}

/**
 * The layers one window draws: nodes with data that are visible in it, with their opacity,
 * colour and level window (by default the one MITK gives a new image), sorted by layer, ties in
 * creation order.
 */
export function layersFor(store: DataStoreView, contexts: readonly string[], time: TimeNavigation): RenderLayer[] {
  const out: Array<RenderLayer & { order: number }> = [];
  store.nodes().forEach((node, order) => {
    const volume = node.volume;
    if (!volume || volume.frames.length === 0 || !isVisible(store, node, contexts)) return;
    const property = (key: string): PropertyValue | undefined => windowProperty(store, node, key, contexts);
    const lw = ofType<LevelWindowState>(property('levelwindow'), 'LevelWindowProperty') ?? NO_LEVEL_WINDOW;
    const colours = volume.segmentation ? undefined : coloursOf(property, lw);
    if (colours === null) return;
    out.push({
      uid: node.uid,
      volume,
      timeStep: time.frameOf(volume),
      opacity: Math.min(1, Math.max(0, numberOf(property('opacity')) ?? 1)),
      color: colorOf(property('color')),
      levelWindow: { level: levelOf(lw), window: windowOf(lw) },
      ...(colours ? { colours } : {}),
      textureInterpolation: ofType<boolean>(property('texture interpolation'), 'BoolProperty') === true,
      resliceInterpolation: resliceOf(property('reslice interpolation'), volume),
      layer: numberOf(property('layer')) ?? 0,
      order,
    });
  });
  out.sort((a, b) => a.layer - b.layer || a.order - b.order);
  return out.map(({ order: _order, ...layer }) => layer);
}

/** What a cached image depends on besides the view: which data, in which state, drawn how. */
export function layersFingerprint(store: DataStoreView, layers: readonly RenderLayer[]): string {
  return layers
    .map(
      (l) =>
        `${l.uid}@${store.get(l.uid)?.timestamp ?? 0}:${l.timeStep}:${l.opacity}:${l.color?.join(',') ?? '-'}:${l.levelWindow.level}/${l.levelWindow.window}:${l.colours ? `${tableId(l.colours.table)}/${l.colours.range.join('/')}/${l.colours.lookup}` : '-'}:${l.textureInterpolation ? 't' : ''}${l.resliceInterpolation ?? ''}:${l.layer}`,
    )
    .join('|');
}

const tableIds = new WeakMap<Uint8Array, number>();
let nextTableId = 0;

/** A number per colour table object: a new table (a new property value) draws anew. */
function tableId(table: Uint8Array): number {
  let id = tableIds.get(table);
  if (id === undefined) tableIds.set(table, (id = nextTableId++));
  return id;
}
