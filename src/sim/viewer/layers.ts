import type { DataStoreView, PropertyValue, SimNode } from '../datastore-types.js';
import { autoLevelWindow } from '../level-window.js';
import type { RenderLayer, Rgb } from '../render/types.js';
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

function levelWindowOf(p: PropertyValue | undefined): { level: number; window: number } | undefined {
  const v = p?.value as { level?: unknown; window?: unknown } | undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  return typeof v.level === 'number' && typeof v.window === 'number' ? { level: v.level, window: v.window } : undefined;
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
    out.push({
      uid: node.uid,
      volume,
      timeStep: time.frameOf(volume),
      opacity: Math.min(1, Math.max(0, numberOf(windowProperty(store, node, 'opacity', contexts)) ?? 1)),
      color: colorOf(windowProperty(store, node, 'color', contexts)),
      levelWindow: levelWindowOf(windowProperty(store, node, 'levelwindow', contexts)) ?? autoLevelWindow(volume),
      layer: numberOf(windowProperty(store, node, 'layer', contexts)) ?? 0,
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
        `${l.uid}@${store.get(l.uid)?.timestamp ?? 0}:${l.timeStep}:${l.opacity}:${l.color?.join(',') ?? '-'}:${l.levelWindow.level}/${l.levelWindow.window}:${l.layer}`,
    )
    .join('|');
}
