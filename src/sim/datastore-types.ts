import type { LevelWindowState } from './level-window-state.js';
import type { LookupTableState } from './lookup-table.js';
import type { Volume } from '../volume/volume.js';

/**
 * A property as the workbench stores it: typed like MITK's property classes. The wire form
 * (raw JSON scalar for simple types, `{type, value}` otherwise) is produced at the boundary.
 */
export type PropertyValue =
  | { type: 'BoolProperty'; value: boolean }
  | { type: 'IntProperty'; value: number }
  | { type: 'FloatProperty'; value: number }
  | { type: 'StringProperty'; value: string }
  | { type: 'ColorProperty'; value: [number, number, number] }
  | { type: 'LevelWindowProperty'; value: LevelWindowState }
  | { type: 'LookupTableProperty'; value: LookupTableState }
  | { type: string; value: unknown };

export type PropertyList = Map<string, PropertyValue>;

export interface SimNode {
  readonly uid: string;
  parentUid: string | null;
  volume: Volume | null;
  /** Node-scope properties in the default (null) context; `name` lives here. */
  properties: PropertyList;
  /** Node-scope properties per renderer context (window id), overriding the defaults. */
  contextProperties: Map<string, PropertyList>;
  /** Data-scope properties (those of the data object). */
  dataProperties: PropertyList;
  /** Grows on every change, like ITK's modified time. */
  timestamp: number;
}

/**
 * What the rendering side needs from the data storage. The node list is in creation order.
 */
export interface DataStoreView {
  nodes(): readonly SimNode[];
  get(uid: string): SimNode | undefined;
  /**
   * Node-scope property as seen in `context` (a window id): the context's own value if set,
   * else the default-context value.
   */
  property(node: SimNode, key: string, context?: string): PropertyValue | undefined;
  /** Subscribe to node removal (e.g. to forget per-window state). */
  onRemove(listener: (uid: string) => void): void;
}
