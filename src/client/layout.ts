import { WorkbenchUsageError } from './errors.js';
import type { ViewDirection } from '../api/wire.js';

/**
 * The MxN layout document, typed for schema 2.0 (the one every server accepts). A 3.0
 * document from a newer server is accepted as well: every type is open (`[key: string]:
 * unknown`) so keys this client does not know are kept through a GET-modify-PUT round trip.
 */
export interface LayoutDocument {
  version: '2.0' | '3.0' | (string & {});
  /** Preset name; metadata only. */
  name?: string;
  /** Selection groups; when present every group a cell references must be declared. */
  groups?: Record<string, LayoutGroup>;
  root: LayoutSplit;
  [key: string]: unknown;
}

export interface LayoutGroup {
  /** Whether the group's cells show all data nodes (default true). */
  select_all?: boolean;
  [key: string]: unknown;
}

export interface LayoutSplit {
  type: 'split';
  /** `horizontal`: children left to right; `vertical`: top to bottom. */
  orientation: 'horizontal' | 'vertical';
  children: LayoutNode[];
  /** Weight within the parent split; answers carry live pixel sizes here. */
  size?: number;
  [key: string]: unknown;
}

export interface LayoutWindow {
  type: 'window';
  /** `mxn__<name>`: URL segment, property context and identity of the cell. */
  id: string;
  /** Display label. */
  name?: string;
  view_direction: ViewDirection;
  links: LayoutLinks;
  size?: number;
  [key: string]: unknown;
}

export interface LayoutLinks {
  /** Selection group: cells of a group share selection, visibility and layers. */
  selection: string;
  /** Schema 3.0 adds pan, zoom, slice, crosshair, orientation, windowing, lut. */
  [key: string]: unknown;
}

export type LayoutNode = LayoutSplit | LayoutWindow;

/** The cell ids of a layout in document (pre-)order, which is also the server's window order. */
export function layoutCellIds(doc: LayoutDocument): string[] {
  const ids: string[] = [];
  const walk = (n: LayoutNode): void => {
    if (n.type === 'window') ids.push(n.id);
    else for (const c of n.children ?? []) walk(c);
  };
  walk(doc.root);
  return ids;
}

/**
 * A shallow check before a PUT: only what makes a body certainly not a layout document.
 * The server validates the rest (and answers INVALID_REQUEST with its reason).
 */
export function checkLayoutDocument(doc: unknown): asserts doc is LayoutDocument {
  const d = doc as Record<string, unknown> | null;
  if (typeof d !== 'object' || d === null || Array.isArray(d)) {
    throw new WorkbenchUsageError('INVALID_ARGUMENT', 'a layout document is a JSON object with version and root');
  }
  if (typeof d.version !== 'string')
    throw new WorkbenchUsageError('INVALID_ARGUMENT', 'a layout document needs a string \'version\' ("2.0")');
  const root = d.root as Record<string, unknown> | undefined;
  if (typeof root !== 'object' || root === null || root.type !== 'split') {
    throw new WorkbenchUsageError(
      'INVALID_ARGUMENT',
      "a layout document's 'root' must be a split node ({type: 'split', orientation, children})",
    );
  }
}
