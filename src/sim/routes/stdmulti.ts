import { json, noContent } from '../http-types.js';
import { Problem } from '../problem.js';
import type { RouteParams, Router } from '../router.js';
import type { Viewer } from '../viewer/viewer.js';
import { isStdMultiId, type RenderWindow, type Window2D } from '../viewer/windows.js';
import { parseCameraPatch } from './camera-patch.js';
import { cameraJson, image, stdWindowItem, stdWindowSummary } from './rendering-answers.js';
import { parseStep } from './rendering-body.js';
import { parseScreenshotParams } from './screenshot-params.js';

const BASE = '/api/v1/rendering/editors/stdmulti';

const SLICE_HINT =
  "'position' is not accepted on StdMulti selected-slice. Use PUT /rendering/selected-position to move by world coordinates.";

/**
 * The StdMulti routes. Check order of the real server: the window id (404, before anything
 * else, even with the editor closed), then `3d` on slice routes (404), then the body or query
 * (400), then the editor (503).
 */
export function registerStdMultiRoutes(router: Router, viewer: Viewer): void {
  const windowOf = (params: RouteParams): RenderWindow => {
    const id = params.id ?? '';
    if (!isStdMultiId(id))
      throw new Problem('RENDER_WINDOW_NOT_FOUND', `No render window with id '${id}' in the addressed editor`);
    return viewer.stdWindow(id);
  };
  const slicedWindowOf = (params: RouteParams): Window2D => {
    const win = windowOf(params);
    if (win.kind === '3d')
      throw new Problem('UNSUPPORTED_OPERATION', 'selected-slice is not applicable to the 3D window.');
    return win;
  };
  const open = (): void => viewer.requireActive('stdmulti');

  router
    .on('GET', BASE, () => json(200, viewer.editorInfo('stdmulti')))
    .on('GET', `${BASE}/windows`, () => {
      open();
      return json(200, viewer.stdWindows().map(stdWindowItem));
    })
    .on('GET', `${BASE}/windows/:id`, (_req, params) => {
      const win = windowOf(params);
      open();
      return json(200, stdWindowSummary(win));
    })
    .on('GET', `${BASE}/windows/:id/camera`, (_req, params) => {
      const win = windowOf(params);
      open();
      return json(200, cameraJson(viewer.camera(win)));
    })
    .on('PUT', `${BASE}/windows/:id/camera`, (req, params) => {
      const win = windowOf(params);
      const patch = parseCameraPatch(req, win.kind === '3d');
      open();
      viewer.setCamera(win, patch);
      return noContent();
    })
    .on('GET', `${BASE}/windows/:id/selected-slice`, (_req, params) => {
      const win = slicedWindowOf(params);
      open();
      return json(200, viewer.sliceState(win));
    })
    .on('PUT', `${BASE}/windows/:id/selected-slice`, (req, params) => {
      const win = slicedWindowOf(params);
      const step = parseStep(req, SLICE_HINT);
      open();
      viewer.setSlice(win, step);
      return noContent();
    })
    .on('GET', `${BASE}/screenshot`, (req) => {
      const shot = parseScreenshotParams(req.query);
      open();
      const out = viewer.screenshot({ kind: 'editor', alias: 'stdmulti' }, shot);
      return image(out.bytes, out.contentType);
    })
    .on('GET', `${BASE}/windows/:id/screenshot`, (req, params) => {
      const win = windowOf(params);
      const shot = parseScreenshotParams(req.query);
      open();
      const out = viewer.screenshot({ kind: 'window', alias: 'stdmulti', window: win }, shot);
      return image(out.bytes, out.contentType);
    });
}
