import type { SimRequest } from '../http-types.js';
import { checkNesting } from '../../volume/json-literals.js';
import { Problem } from '../problem.js';
import type { Vec3 } from '../../volume/volume.js';
import { isVec3 } from '../viewer/vec.js';

/** A request body: absent (no bytes or only whitespace) or a parsed JSON value with its text. */
export type Body = { present: false } | { present: true; value: unknown; text: string };

const invalid = (message: string): never => {
  throw new Problem('INVALID_REQUEST', message);
};

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function readBody(
  req: SimRequest,
  invalidJson: (detail: string) => string = (d) => `Invalid JSON body: ${d}`,
): Body {
  const text = Buffer.from(req.body).toString('utf8');
  if (text.trim() === '') return { present: false };
  try {
    checkNesting(text);
    return { present: true, value: JSON.parse(text) as unknown, text };
  } catch (e) {
    return invalid(invalidJson((e as Error).message));
  }
}

/** A body that must be there and be a JSON object. */
export function requireObject(req: SimRequest): { value: Record<string, unknown>; text: string } {
  const body = readBody(req);
  if (!body.present) return invalid('Request body is required.');
  if (!isObject(body.value)) return invalid('Request body must be a JSON object.');
  return { value: body.value, text: body.text };
}

/**
 * The source text of each number that is a direct member of the top-level object. JSON.parse
 * turns `3` and `3.0` into the same value, while the real server's parser keeps them apart and
 * refuses `3.0` where an integer is required; this scan of already valid JSON recovers that.
 */
export function topLevelNumberLiterals(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const token = /\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[{}[\]:,]|true|false|null)/y;
  let depth = 0;
  let key: string | undefined;
  let previous: string | undefined;
  let m: RegExpExecArray | null;
  while ((m = token.exec(text)) !== null) {
    const t = m[1]!;
    if (t === '{' || t === '[') depth++;
    else if (t === '}' || t === ']') depth--;
    else if (depth === 1 && t.startsWith('"') && (previous === '{' || previous === ',')) key = JSON.parse(t) as string;
    else if (depth === 1 && previous === ':' && key !== undefined && /^-?\d/.test(t)) out.set(key, t);
    previous = t;
  }
  return out;
}

/** A non-negative JSON integer literal (`3`, not `3.0`, `3e0` or `"3"`). */
export function isIntegerLiteral(text: string, key: string, value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && /^\d+$/.test(topLevelNumberLiterals(text).get(key) ?? '');
}

/** `{"position": [x, y, z]}` of the global and the per-cell selected-position PUTs. */
export function parsePosition(req: SimRequest): Vec3 {
  const body = readBody(req);
  if (!body.present) return invalid('Request body is required.');
  if (!isObject(body.value) || !('position' in body.value)) return invalid("'position' field is required.");
  const position = body.value.position;
  if (!isVec3(position)) return invalid("'position' must be an array of exactly 3 numbers.");
  return position;
}

/** `{"step": n}` of a selected-slice PUT; `hint` says where world-coordinate moves go instead. */
export function parseStep(req: SimRequest, hint: string): number {
  const { value, text } = requireObject(req);
  if ('position' in value) return invalid(hint);
  for (const key of Object.keys(value)) if (key !== 'step') return invalid(`Unknown field '${key}'.`);
  if (!('step' in value)) return invalid("'step' field is required.");
  if (!isIntegerLiteral(text, 'step', value.step)) return invalid("'step' must be a non-negative integer.");
  return value.step;
}

export type TimeTarget = { timestep: number } | { timepoint_ms: number };

/** Exactly one of `timepoint_ms` (a number) or `timestep` (a non-negative integer). */
export function parseTime(req: SimRequest): TimeTarget {
  const body = readBody(req);
  if (!body.present) return invalid('Request body is required.');
  const value = isObject(body.value) ? body.value : {};
  const hasPoint = 'timepoint_ms' in value;
  const hasStep = 'timestep' in value;
  if (hasPoint && hasStep) return invalid("Provide exactly one of 'timepoint_ms' or 'timestep', not both.");
  if (!hasPoint && !hasStep) return invalid("Either 'timepoint_ms' (number) or 'timestep' (integer) is required.");
  if (hasStep) {
    if (!isIntegerLiteral(body.text, 'timestep', value.timestep))
      return invalid("'timestep' must be a non-negative integer.");
    return { timestep: value.timestep };
  }
  if (typeof value.timepoint_ms !== 'number') return invalid("'timepoint_ms' must be a number.");
  return { timepoint_ms: value.timepoint_ms };
}

export type UpdateType = 'all' | '2d' | '3d';

/** Optional `{"type": "all" | "2d" | "3d"}`; a non-string type breaks the JSON accessor. */
export function parseUpdate(req: SimRequest): UpdateType {
  const body = readBody(req, () => 'Invalid JSON body.');
  if (!body.present) return 'all';
  if (!isObject(body.value)) return invalid('Invalid JSON body.');
  const type = body.value.type ?? 'all';
  if (typeof type !== 'string') return invalid('Invalid JSON body.');
  if (type !== 'all' && type !== '2d' && type !== '3d')
    return invalid(`Invalid update type '${type}'. Must be 'all', '2d' or '3d'.`);
  return type;
}

/**
 * Optional `{"uids": [...]}`; without `uids` (or with another JSON value than an object, which
 * has no `uids` member) the reinit is global. Other keys are ignored, as the real server does.
 */
export function parseReinit(req: SimRequest): string[] | undefined {
  const body = readBody(req);
  if (!body.present || !isObject(body.value) || !('uids' in body.value)) return undefined;
  const uids = body.value.uids;
  if (!Array.isArray(uids)) return invalid("'uids' must be an array of node UIDs.");
  if (uids.length === 0) return invalid("'uids' must not be empty; send no body (or {}) for a global reinit.");
  if (!uids.every((u): u is string => typeof u === 'string')) return invalid("'uids' must contain only strings.");
  return uids;
}
