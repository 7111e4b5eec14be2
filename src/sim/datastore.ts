import type { DataStoreView, PropertyList, PropertyValue, SimNode } from './datastore-types.js';
import { applyImageDefaults } from './image-defaults.js';
import { Problem } from './problem.js';
import type { Volume } from '../volume/volume.js';

/** Where a property lives: the node's own list (optionally per render window) or its data's. */
export type PropertyScope = 'node' | 'data';

/** Keys the server keeps for itself (MITK stores the UID as `restapi.uid`). */
export const isReserved = (key: string): boolean => key.startsWith('restapi.');

/**
 * Sets a property the way MITK's `PropertyList::SetProperty` does: a value of another class
 * than the one already under the key (an IntProperty 1 onto the FloatProperty `opacity`) is not
 * applied: the old value stays, and the call that asked for it still succeeds. Returns whether
 * the value was applied.
 */
export function assign(list: PropertyList, key: string, value: PropertyValue): boolean {
  const old = list.get(key);
  if (old !== undefined && old.type !== value.type) return false;
  list.set(key, value);
  return true;
}

/**
 * The scene's data storage: nodes in creation order, their hierarchy, data and properties.
 * Mutations bump a global modified time, like ITK's, so `timestamp` only ever grows.
 */
export class DataStore implements DataStoreView {
  private readonly ordered: SimNode[] = [];
  private readonly byUid = new Map<string, SimNode>();
  private readonly removeListeners: Array<(uid: string) => void> = [];
  private created = 0;
  private clock = 0;

  nodes(): readonly SimNode[] {
    return this.ordered;
  }

  get(uid: string): SimNode | undefined {
    return this.byUid.get(uid);
  }

  /** The node or a NODE_NOT_FOUND problem. */
  require(uid: string): SimNode {
    const node = this.byUid.get(uid);
    if (!node) throw new Problem('NODE_NOT_FOUND', `No node found with UID '${uid}'`);
    return node;
  }

  /** As `DataNode::GetProperty`: the data object's properties are the last fallback. */
  property(node: SimNode, key: string, context?: string): PropertyValue | undefined {
    return (
      (context !== undefined ? node.contextProperties.get(context)?.get(key) : undefined) ??
      node.properties.get(key) ??
      node.dataProperties.get(key)
    );
  }

  onRemove(listener: (uid: string) => void): void {
    this.removeListeners.push(listener);
  }

  /**
   * Adds a node with the properties every node here starts with: name, visible and layer in
   * creation order, and opacity 1.0 for a node without data. Then come the client's own
   * `properties` (as the real server sets them before the data), then the data with the image
   * mapper's defaults (see `applyImageDefaults`). The parent must exist.
   */
  create(options: {
    name?: string;
    parentUid?: string | null;
    volume?: Volume | null;
    properties?: ReadonlyArray<[string, PropertyValue]>;
    /** Properties the file's reader set on the data object (DICOM's level window, tags). */
    dataProperties?: PropertyList;
  }): SimNode {
    if (options.parentUid) this.require(options.parentUid);
    const ordinal = this.created++;
    const uid = `node_${ordinal + 1}`;
    const properties = new Map<string, PropertyValue>([
      ['name', { type: 'StringProperty', value: options.name ?? uid }],
      ['visible', { type: 'BoolProperty', value: true }],
      ['layer', { type: 'IntProperty', value: ordinal }],
    ]);
    // An image's opacity is the mapper's to give (0.3 for a binary one).
    if (!options.volume) properties.set('opacity', { type: 'FloatProperty', value: 1 });
    const node: SimNode = {
      uid,
      parentUid: options.parentUid ?? null,
      volume: null,
      properties,
      contextProperties: new Map(),
      dataProperties: new Map(),
      timestamp: 0,
    };
    for (const [key, value] of options.properties ?? []) assign(properties, key, value);
    this.ordered.push(node);
    this.byUid.set(uid, node);
    if (options.volume) this.setVolume(node, options.volume, options.dataProperties);
    this.touch(node);
    return node;
  }

  /**
   * New data for a node, as `DataNode::SetData`: data of the kind the node had keeps the node's
   * properties; a first data object gets the image mapper's defaults; data of another kind
   * clears the node's properties first. MITK clears the name too, and with it the node's
   * identity; here the name stays.
   */
  setVolume(node: SimNode, volume: Volume, dataProperties: PropertyList = new Map()): void {
    const previous = node.volume;
    const sameKind = previous !== null && Boolean(previous.segmentation) === Boolean(volume.segmentation);
    node.volume = volume;
    node.dataProperties = dataProperties;
    if (previous !== null && !sameKind) {
      for (const key of [...node.properties.keys()])
        if (key !== 'name' && !isReserved(key)) node.properties.delete(key);
    }
    if (!sameKind) applyImageDefaults(node.properties, volume, dataProperties);
    this.touch(node);
  }

  name(node: SimNode): string {
    const p = node.properties.get('name');
    return typeof p?.value === 'string' ? p.value : '';
  }

  children(uid: string | null): SimNode[] {
    return this.ordered.filter((n) => n.parentUid === uid);
  }

  /** `/Parent/Child` from the names of the node and its ancestors. */
  path(node: SimNode): string {
    const names: string[] = [];
    for (let n: SimNode | undefined = node; n; n = n.parentUid ? this.byUid.get(n.parentUid) : undefined)
      names.unshift(this.name(n));
    return `/${names.join('/')}`;
  }

  /** Every descendant, deepest first (the order they are deleted in). */
  descendants(uid: string): SimNode[] {
    const out: SimNode[] = [];
    for (const child of this.children(uid)) out.push(...this.descendants(child.uid), child);
    return out;
  }

  /** Moves a node under another one (or to the top level with null), refusing cycles. */
  reparent(node: SimNode, parentUid: string | null): void {
    if (parentUid !== null) {
      const parent = this.byUid.get(parentUid);
      if (!parent) throw new Problem('NODE_NOT_FOUND', `No node found with UID '${parentUid}' (the new parent)`);
      if (parent === node || this.descendants(node.uid).includes(parent)) {
        throw new Problem(
          'CIRCULAR_HIERARCHY_REFERENCE',
          `Node '${parentUid}' is '${node.uid}' itself or one of its descendants; a node cannot become its own ancestor`,
        );
      }
    }
    node.parentUid = parentUid;
    this.touch(node);
  }

  /** Removes a node, and with `recursive` its descendants; returns the removed descendants' UIDs. */
  remove(node: SimNode, recursive: boolean): string[] {
    const direct = this.children(node.uid).length;
    if (direct > 0 && !recursive) {
      throw new Problem('NODE_HAS_CHILDREN', `Node has ${direct} children. Use ?recursive=true to delete.`, {
        extra: { children_count: direct },
      });
    }
    const gone = this.descendants(node.uid);
    for (const n of [...gone, node]) {
      this.ordered.splice(this.ordered.indexOf(n), 1);
      this.byUid.delete(n.uid);
      for (const listener of this.removeListeners) listener(n.uid);
    }
    return gone.map((n) => n.uid);
  }

  /** The list a write addresses: the data's list, the node's, or the node's for one window. */
  list(node: SimNode, scope: PropertyScope, context: string | null): PropertyList {
    if (scope === 'data') return node.dataProperties;
    if (context === null) return node.properties;
    let own = node.contextProperties.get(context);
    if (!own) {
      own = new Map();
      node.contextProperties.set(context, own);
    }
    return own;
  }

  /**
   * What a read sees: node scope is the window's own values over the default ones; `all` adds
   * the data's properties underneath (node values win).
   */
  view(node: SimNode, scope: PropertyScope | 'all', context: string | null): PropertyList {
    const out: PropertyList = new Map();
    const layers: Array<PropertyList | undefined> =
      scope === 'data'
        ? [node.dataProperties]
        : [
            scope === 'all' ? node.dataProperties : undefined,
            node.properties,
            context === null ? undefined : node.contextProperties.get(context),
          ];
    for (const layer of layers) for (const [k, v] of layer ?? []) if (!isReserved(k)) out.set(k, v);
    return out;
  }

  /** Window ids with values of their own, after the default context (null). */
  contexts(node: SimNode): Array<string | null> {
    return [null, ...[...node.contextProperties].filter(([, l]) => l.size > 0).map(([id]) => id)];
  }

  touch(node: SimNode): void {
    node.timestamp = ++this.clock;
  }
}
