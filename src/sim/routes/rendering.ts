import type { DataStoreView } from '../datastore-types.js';
import type { Router } from '../router.js';
import type { Viewer } from '../viewer/viewer.js';

export interface RenderingContext {
  store: DataStoreView;
  viewer: Viewer;
}

/** Registers every `/api/v1/rendering/...` route. */
export function registerRenderingRoutes(_router: Router, _ctx: RenderingContext): void {
  // The rendering routes are being implemented.
}
