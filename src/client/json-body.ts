import { WorkbenchUsageError } from './errors.js';

/**
 * A number the workbench must store as a float. The server types a property by the JSON
 * shape of its value (`1` becomes an IntProperty, `1.0` a FloatProperty), and
 * `JSON.stringify(1.0)` writes `1`; a value wrapped here is always written with a fraction.
 */
export class JsonFloat {
  constructor(readonly value: number) {}
}

/** Marks `n` to be sent as a float (`float(1)` is written `1.0`). */
export function float(n: number): JsonFloat {
  return new JsonFloat(n);
}

/** Marks every element of a vector as a float. */
export function floats(v: readonly number[]): JsonFloat[] {
  return v.map((n) => new JsonFloat(n));
}

/**
 * Serializes a request body: like `JSON.stringify`, but `JsonFloat` values keep a fraction
 * and non-finite numbers are refused (JSON cannot carry them; `JSON.stringify` would silently
 * write `null`). Written by hand because Node 20 has no `JSON.rawJSON`.
 */
export function toJson(value: unknown, where = 'body'): string {
  if (value === null) return 'null';
  if (value instanceof JsonFloat) return floatText(value.value, where);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw notFinite(where, value);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value))
        return `[${value.map((v, i) => toJson(v === undefined ? null : v, `${where}[${i}]`)).join(',')}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined || typeof v === 'function') continue;
        parts.push(`${JSON.stringify(k)}:${toJson(v, `${where}.${k}`)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new WorkbenchUsageError(
        'INVALID_ARGUMENT',
        `${where}: a ${typeof value} cannot be sent as JSON; use strings, numbers, booleans, arrays and objects`,
      );
  }
}

function floatText(n: number, where: string): string {
  if (!Number.isFinite(n)) throw notFinite(where, n);
  const s = JSON.stringify(n);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

function notFinite(where: string, n: number): WorkbenchUsageError {
  return new WorkbenchUsageError(
    'INVALID_ARGUMENT',
    `${where}: ${n} is not a finite number and cannot be sent as JSON`,
  );
}
