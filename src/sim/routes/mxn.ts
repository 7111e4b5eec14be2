import { json, noContent } from '../http-types.js';
import { Problem } from '../problem.js';
import type { RouteParams, Router } from '../router.js';
import type { Viewer } from '../viewer/viewer.js';
import type { Cell } from '../viewer/windows.js';
import { parseCameraPatch } from './camera-patch.js';
import { cameraJson, cellItem, cellSummary, image } from './rendering-answers.js';
import { parsePosition, parseStep, readBody } from './rendering-body.js';
import { parseScreenshotParams } from './screenshot-params.js';

const BASE = '/api/v1/rendering/editors/mxn';
/** The cell id form the real server's per-cell routes accept: `<editor name>__<bare id>`. */
const CELL_ID = /^[A-Za-z][A-Za-z0-9.-]*__[A-Za-z0-9_.-]+$/;

const sliceHint = (id: string): string =>
  `'position' is not accepted on MxN selected-slice. Use PUT /rendering/editors/mxn/windows/${id}/selected-position to move this cell, or PUT /rendering/selected-position for the global crosshair.`;

/**
 * The MxN routes. Check order of the real server: a malformed cell id (400), then the body or
 * query (400), then the editor (503), then an unknown but well-formed id (404).
 */
export function registerMxnRoutes(router: Router, viewer: Viewer): void {
  const idOf = (params: RouteParams): string => {
    const id = params.id ?? '';
    if (!CELL_ID.test(id)) {
      throw new Problem(
        'INVALID_REQUEST',
        `Malformed MxN window id '${id}'. Expected pattern: <prefix>__<bare> (e.g. 'mxn__widget0').`,
      );
    }
    return id;
  };
  const cellOf = (id: string): Cell => {
    viewer.requireActive('mxn');
    return viewer.cell(id);
  };

  router
    .on('GET', BASE, () => json(200, viewer.editorInfo('mxn')))
    .on('GET', `${BASE}/windows`, () => {
      viewer.requireActive('mxn');
      return json(200, viewer.cells().map(cellItem));
    })
    .on('GET', `${BASE}/windows/:id`, (_req, params) => json(200, cellSummary(cellOf(idOf(params)))))
    .on('GET', `${BASE}/layout`, () => {
      viewer.requireActive('mxn');
      return json(200, viewer.layoutDocument());
    })
    .on('PUT', `${BASE}/layout`, (req) => {
      const body = readBody(req);
      if (!body.present) {
        throw new Problem(
          'INVALID_REQUEST',
          "Request body must be an MxN layout document (a JSON object with 'version' and 'root').",
        );
      }
      viewer.requireActive('mxn');
      return json(200, viewer.applyLayout(body.value));
    })
    .on('GET', `${BASE}/windows/:id/camera`, (_req, params) =>
      json(200, cameraJson(viewer.camera(cellOf(idOf(params))))),
    )
    .on('PUT', `${BASE}/windows/:id/camera`, (req, params) => {
      const id = idOf(params);
      // Every cell is 2D, so `perspective_angle` is always refused.
      const patch = parseCameraPatch(req, false);
      viewer.setCamera(cellOf(id), patch);
      return noContent();
    })
    .on('GET', `${BASE}/windows/:id/selected-slice`, (_req, params) =>
      json(200, viewer.sliceState(cellOf(idOf(params)))),
    )
    .on('PUT', `${BASE}/windows/:id/selected-slice`, (req, params) => {
      const id = idOf(params);
      const step = parseStep(req, sliceHint(id));
      viewer.setSlice(cellOf(id), step);
      return noContent();
    })
    .on('GET', `${BASE}/windows/:id/selected-position`, (_req, params) =>
      json(200, viewer.cellPosition(cellOf(idOf(params)))),
    )
    .on('PUT', `${BASE}/windows/:id/selected-position`, (req, params) => {
      const id = idOf(params);
      const position = parsePosition(req);
      viewer.setCellPosition(cellOf(id), position);
      return noContent();
    })
    .on('GET', `${BASE}/screenshot`, (req) => {
      const shot = parseScreenshotParams(req.query);
      viewer.requireActive('mxn');
      const out = viewer.screenshot({ kind: 'editor', alias: 'mxn' }, shot);
      return image(out.bytes, out.contentType);
    })
    .on('GET', `${BASE}/windows/:id/screenshot`, (req, params) => {
      const id = idOf(params);
      const shot = parseScreenshotParams(req.query);
      const out = viewer.screenshot({ kind: 'window', alias: 'mxn', window: cellOf(id) }, shot);
      return image(out.bytes, out.contentType);
    });
}
