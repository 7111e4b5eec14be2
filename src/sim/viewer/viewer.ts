import type { DataStoreView } from '../datastore-types.js';

export type EditorAlias = 'stdmulti' | 'mxn';

export interface ViewerOptions {
  /** Editors that start closed, so the EDITOR_NOT_ACTIVE paths are reachable. */
  inactive?: EditorAlias[];
}

/** Editors, render windows, navigation and time of the reference workbench. */
export class Viewer {
  constructor(
    readonly store: DataStoreView,
    readonly options: ViewerOptions = {},
  ) {}
}
