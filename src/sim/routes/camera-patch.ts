import type { SimRequest } from '../http-types.js';
import { Problem } from '../problem.js';
import type { Vec3 } from '../../volume/volume.js';
import { STANDARD_VIEWS, type CameraPatch, type StandardView } from '../viewer/camera.js';
import { requireObject } from './rendering-body.js';

const FIELDS = ['position', 'focal_point', 'view_up', 'parallel_scale', 'perspective_angle', 'standard_view'];
const POSE = ['position', 'focal_point', 'view_up'] as const;

const invalid = (message: string): never => {
  throw new Problem('INVALID_REQUEST', message);
};

function vector(field: string, v: unknown): Vec3 {
  if (!Array.isArray(v)) return invalid(`'${field}' must be an array of 3 numbers.`);
  if (v.length !== 3) return invalid(`'${field}' must have exactly 3 elements, got ${v.length}.`);
  v.forEach((x, i) => {
    if (typeof x !== 'number') invalid(`'${field}' element ${i} is not a number.`);
  });
  return [v[0], v[1], v[2]] as Vec3;
}

/**
 * A camera PUT body, validated as the real server does (every failure 400): known fields only,
 * 3-vectors, `parallel_scale` > 0 for 2D windows, `perspective_angle` in (0, 180) for the 3D
 * window only (never on an MxN cell), a known standard view that is not mixed with a pose.
 */
export function parseCameraPatch(req: SimRequest, is3d: boolean): CameraPatch {
  const { value } = requireObject(req);
  for (const key of Object.keys(value)) if (!FIELDS.includes(key)) invalid(`Unknown field '${key}'.`);
  const patch: CameraPatch = {};
  for (const field of POSE) if (field in value) patch[field] = vector(field, value[field]);
  if ('parallel_scale' in value) {
    if (is3d) invalid("'parallel_scale' is not applicable to the 3D window.");
    const s = value.parallel_scale;
    if (typeof s !== 'number' || !(s > 0)) invalid("'parallel_scale' must be a number greater than 0.");
    patch.parallel_scale = s as number;
  }
  if ('perspective_angle' in value) {
    if (!is3d) invalid("'perspective_angle' is only applicable to the 3D window.");
    const a = value.perspective_angle;
    if (typeof a !== 'number' || !(a > 0 && a < 180))
      invalid("'perspective_angle' must be a number in the open interval (0, 180).");
    patch.perspective_angle = a as number;
  }
  if ('standard_view' in value) {
    const view = value.standard_view;
    if (typeof view !== 'string' || !(STANDARD_VIEWS as readonly string[]).includes(view)) {
      invalid(`'standard_view' must be one of ${STANDARD_VIEWS.map((v) => `'${v}'`).join(', ')}.`);
    }
    if (POSE.some((f) => f in value)) {
      invalid(
        "'standard_view' cannot be combined with 'position', 'focal_point', or 'view_up'. Send a standard view or an explicit pose, not both.",
      );
    }
    patch.standard_view = view as StandardView;
  }
  if (Object.keys(patch).length === 0) invalid('Request body must set at least one camera field.');
  return patch;
}
