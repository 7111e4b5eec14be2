import { WorkbenchUsageError } from './errors.js';
import { float, floats, type JsonFloat } from './json-body.js';
import type { CameraPatch, StandardView, WindowKind } from '../api/wire.js';

export const STANDARD_VIEWS: readonly StandardView[] = ['anterior', 'posterior', 'left', 'right', 'cranial', 'caudal'];
const VECTORS = ['position', 'focal_point', 'view_up'] as const;
const KNOWN = new Set<string>([...VECTORS, 'parallel_scale', 'perspective_angle', 'standard_view']);

/**
 * Checks a camera PUT with the server's rules and builds its body, so that every body the
 * server would answer 400 is refused here with the same meaning: an empty patch, an unknown
 * field, `standard_view` combined with a pose field, `perspective_angle` on a 2D window,
 * `parallel_scale` on the 3D window, or values out of range.
 */
export function cameraBody(
  patch: CameraPatch,
  kind: WindowKind,
  windowName: string,
): Record<string, JsonFloat | JsonFloat[] | string> {
  const p = patch as unknown;
  if (typeof p !== 'object' || p === null || Array.isArray(p))
    throw invalid('INVALID_ARGUMENT', `${windowName}: a camera patch is an object`);
  const given = Object.entries(p as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const unknown = given.map(([k]) => k).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) {
    throw invalid(
      'INVALID_ARGUMENT',
      `${windowName}: unknown camera field(s) ${unknown.join(', ')}; known: ${[...KNOWN].join(', ')}`,
    );
  }
  if (given.length === 0) throw invalid('EMPTY_PATCH', `${windowName}: a camera change must set at least one field`);
  const body: Record<string, JsonFloat | JsonFloat[] | string> = {};
  const pose = VECTORS.filter((k) => patch[k] !== undefined);
  if (patch.standard_view !== undefined) {
    if (pose.length > 0) {
      throw invalid(
        'CAMERA_CONFLICT',
        `${windowName}: standard_view cannot be combined with ${pose.join(', ')}; set the standard view first, then adjust the pose in a second call`,
      );
    }
    if (!STANDARD_VIEWS.includes(patch.standard_view)) {
      throw invalid(
        'INVALID_ARGUMENT',
        `${windowName}: standard_view '${String(patch.standard_view)}' is not one of ${STANDARD_VIEWS.join(', ')}`,
      );
    }
    body.standard_view = patch.standard_view;
  }
  for (const k of pose) {
    const v = patch[k] as unknown;
    if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw invalid(
        'INVALID_ARGUMENT',
        `${windowName}: ${k} must be exactly three finite numbers, got ${JSON.stringify(v)}`,
      );
    }
    body[k] = floats(v as number[]);
  }
  if (patch.parallel_scale !== undefined) {
    if (kind === '3d')
      throw invalid(
        'NOT_APPLICABLE',
        `${windowName}: parallel_scale applies to 2D windows only; use perspective_angle on the 3D window`,
      );
    if (!(
      typeof patch.parallel_scale === 'number' &&
      Number.isFinite(patch.parallel_scale) &&
      patch.parallel_scale > 0
    )) {
      throw invalid(
        'INVALID_ARGUMENT',
        `${windowName}: parallel_scale must be a number greater than 0, got ${String(patch.parallel_scale)}`,
      );
    }
    body.parallel_scale = float(patch.parallel_scale);
  }
  if (patch.perspective_angle !== undefined) {
    if (kind === '2d')
      throw invalid(
        'NOT_APPLICABLE',
        `${windowName}: perspective_angle applies to the 3D window only; use parallel_scale on 2D windows`,
      );
    const a = patch.perspective_angle;
    if (!(typeof a === 'number' && a > 0 && a < 180)) {
      throw invalid(
        'INVALID_ARGUMENT',
        `${windowName}: perspective_angle must be between 0 and 180 degrees (exclusive), got ${String(a)}`,
      );
    }
    body.perspective_angle = float(a);
  }
  return body;
}

function invalid(
  code: 'INVALID_ARGUMENT' | 'EMPTY_PATCH' | 'CAMERA_CONFLICT' | 'NOT_APPLICABLE',
  message: string,
): WorkbenchUsageError {
  return new WorkbenchUsageError(code, message);
}
