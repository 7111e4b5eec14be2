import type { DataStoreView } from '../datastore-types.js';
import { json, noContent } from '../http-types.js';
import type { Router } from '../router.js';
import type { Viewer } from '../viewer/viewer.js';
import { registerMxnRoutes } from './mxn.js';
import { image } from './rendering-answers.js';
import { parsePosition, parseReinit, parseTime, parseUpdate } from './rendering-body.js';
import { parseScreenshotParams } from './screenshot-params.js';
import { registerStdMultiRoutes } from './stdmulti.js';

export interface RenderingContext {
  store: DataStoreView;
  viewer: Viewer;
}

export const RENDERING = '/api/v1/rendering';

/**
 * Registers every `/api/v1/rendering/...` route. Rendering answers are bare JSON (no envelope)
 * and 204 where the real server sends no body; failures are thrown as `Problem`s.
 */
export function registerRenderingRoutes(router: Router, ctx: RenderingContext): void {
  const { viewer } = ctx;
  router
    .on('POST', `${RENDERING}/update`, (req) => {
      viewer.update(parseUpdate(req));
      return noContent();
    })
    .on('POST', `${RENDERING}/reinit`, (req) => {
      viewer.reinit(parseReinit(req));
      return noContent();
    })
    .on('GET', `${RENDERING}/selected-position`, () => json(200, viewer.selectedPosition()))
    // The body is checked before the editor: a bad body is 400 even with StdMulti closed.
    .on('PUT', `${RENDERING}/selected-position`, (req) => {
      viewer.setSelectedPosition(parsePosition(req));
      return noContent();
    })
    .on('GET', `${RENDERING}/selected-time`, () => json(200, viewer.time.state()))
    .on('PUT', `${RENDERING}/selected-time`, (req) => {
      const target = parseTime(req);
      if ('timestep' in target) viewer.time.setStep(target.timestep);
      else viewer.time.setTimePoint(target.timepoint_ms);
      return noContent();
    })
    .on('GET', `${RENDERING}/screenshot`, (req) => {
      const shot = viewer.screenshot({ kind: 'application' }, parseScreenshotParams(req.query));
      return image(shot.bytes, shot.contentType);
    })
    .on('GET', `${RENDERING}/editors`, () => json(200, viewer.editors()));
  registerStdMultiRoutes(router, viewer);
  registerMxnRoutes(router, viewer);
}
