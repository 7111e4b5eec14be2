import type { Camera } from '../api/wire.js';
import { readPngText } from '../image/png-text.js';
import type { PanelView, Vec3 } from './projection.js';

/*
 * What a window capture records of its window when it is taken: the camera, the window's own
 * shape and, for a 2D window, the slice it showed. It travels inside the PNG as one text chunk,
 * so a figure made after the run (from a finished output folder, even one copied elsewhere)
 * measures scale bars and places points of the patient exactly as a figure made during the run.
 */

/** The PNG text keyword the view is kept under. */
export const VIEW_KEY = 'wbplay:view';

export interface CaptureView extends PanelView {
  /** Millimetres per pixel of the saved capture, across and down (2D windows; absent in 3D, which has no one scale). */
  mm_per_pixel?: [number, number];
}

/** The view as recorded for a capture of `width`×`height` pixels. */
export function captureView(view: PanelView, width: number, height: number): CaptureView {
  const scale = view.camera.parallel_scale;
  if (scale === null || !(scale > 0) || !(width > 0) || !(height > 0)) return { ...view };
  return { ...view, mm_per_pixel: [(2 * scale * view.aspect) / width, (2 * scale) / height] };
}

/** The text chunk a capture carries its view in. */
export function viewEntries(view: CaptureView): Record<string, string> {
  return { [VIEW_KEY]: JSON.stringify(view) };
}

/**
 * The view a capture recorded, or undefined when it holds none (a capture of the whole
 * application or an editor, a JPEG, or a file made elsewhere); a damaged value is a problem
 * named by `label`, never a wrong scale.
 */
export function readCaptureView(png: Uint8Array, label: string): CaptureView | undefined {
  const text = readPngText(png, label)[VIEW_KEY];
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${label} records its window's view, but not as JSON`);
  }
  if (!isView(value)) throw new Error(`${label} records its window's view without a camera and a shape`);
  return value;
}

function isVec3(v: unknown): v is Vec3 {
  return Array.isArray(v) && v.length === 3 && v.every((n) => typeof n === 'number' && Number.isFinite(n));
}

function isCamera(c: unknown): c is Camera {
  if (c === null || typeof c !== 'object') return false;
  const r = c as Record<string, unknown>;
  const scalar = (n: unknown): boolean => n === null || (typeof n === 'number' && Number.isFinite(n));
  return (
    isVec3(r.position) &&
    isVec3(r.focal_point) &&
    isVec3(r.view_up) &&
    scalar(r.parallel_scale) &&
    scalar(r.perspective_angle)
  );
}

function isView(v: unknown): v is CaptureView {
  if (v === null || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  if (!isCamera(r.camera) || typeof r.aspect !== 'number' || !(r.aspect > 0)) return false;
  if (r.slice === undefined) return true;
  const s = r.slice as Record<string, unknown> | null;
  return s !== null && isVec3(s.normal) && isVec3(s.centre) && typeof s.thickness === 'number';
}
