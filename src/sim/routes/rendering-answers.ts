import type { SimResponse } from '../http-types.js';
import type { CameraState } from '../render/types.js';
import type { Cell, RenderWindow } from '../viewer/windows.js';

/** JSON shapes of the rendering answers. Keys are alphabetical, as the real server writes them. */

/**
 * The full camera state: the scalar that does not apply to the window's kind is null, and
 * there is neither a `kind` nor a `standard_view` key.
 */
/**
 * The camera as the real server writes it: the scalar that does not apply to the window's
 * kind is left out (the contract types both as plain numbers). Clients read a missing one as
 * null, which is what the interface document describes.
 */
export function cameraJson(c: CameraState): Record<string, unknown> {
  return {
    focal_point: c.focal_point,
    ...(c.parallel_scale !== null ? { parallel_scale: c.parallel_scale } : {}),
    ...(c.perspective_angle !== null ? { perspective_angle: c.perspective_angle } : {}),
    position: c.position,
    view_up: c.view_up,
  };
}

/** A StdMulti list entry; the 3D window has no `view_direction` key at all (not null). */
export function stdWindowItem(w: RenderWindow): Record<string, unknown> {
  return w.kind === '2d' ? { id: w.id, kind: '2d', view_direction: w.direction } : { id: w.id, kind: '3d' };
}

export function stdWindowSummary(w: RenderWindow): Record<string, unknown> {
  return { has_camera: true, has_selected_slice: w.kind === '2d', ...stdWindowItem(w) };
}

/** An MxN list entry; `name` (the display label) is omitted when the cell has none. */
export function cellItem(c: Cell): Record<string, unknown> {
  return {
    id: c.id,
    kind: '2d',
    links: { selection: c.group },
    ...(c.name !== undefined ? { name: c.name } : {}),
    view_direction: c.direction,
  };
}

export function cellSummary(c: Cell): Record<string, unknown> {
  return { has_camera: true, has_selected_position: true, has_selected_slice: true, ...cellItem(c) };
}

export function image(bytes: Buffer, contentType: string): SimResponse {
  return { status: 200, headers: { 'content-type': contentType }, body: bytes };
}
