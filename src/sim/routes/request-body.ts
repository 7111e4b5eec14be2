import type { DataStore, PropertyScope } from '../datastore.js';
import type { FileAccess } from '../file-access.js';
import type { SimRequest } from '../http-types.js';
import { FloatLiteral, JsonSyntaxError, parseJson, writeJson, type Json } from '../../volume/json-literals.js';
import { Problem } from '../problem.js';
import type { TempDirs } from '../temp-dirs.js';

/** What the data-storage routes work with. */
export interface StorageContext {
  store: DataStore;
  files: FileAccess;
  temps: TempDirs;
}

export const API = '/api/v1';
export const NODES = `${API}/datastorage/nodes`;

export type JsonObject = { [key: string]: Json };

export const isJsonObject = (v: Json | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof FloatLiteral);

/** The JSON body (number literals kept), or undefined for an empty body; bad JSON is a 400. */
export function readJsonBody(req: SimRequest): Json | undefined {
  const text = new TextDecoder().decode(req.body);
  if (text.trim() === '') return undefined;
  try {
    return parseJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError)
      throw new Problem('INVALID_REQUEST', `Invalid JSON in request body: ${err.message}`);
    throw err;
  }
}

/** A JSON object body; anything else is a 400 with the real server's message. */
export function readObjectBody(req: SimRequest): JsonObject {
  const body = readJsonBody(req);
  if (!isJsonObject(body)) throw new Problem('INVALID_REQUEST', 'Request body must be a JSON object');
  return body;
}

/** `{data, meta?}` with floats written with their fraction. */
export function envelope(
  status: number,
  data: unknown,
  meta?: Record<string, unknown>,
): { status: number; headers: Record<string, string>; body: string } {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: writeJson(meta === undefined ? { data } : { data, meta }),
  };
}

/** `property_scope`: unknown values are ignored (the default stays), as in the real server. */
export function scopeParam<T extends string>(req: SimRequest, allowed: readonly T[], fallback: T): T {
  const v = req.query.get('property_scope');
  return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
}

export const WRITE_SCOPES: readonly PropertyScope[] = ['node', 'data'];
export const READ_SCOPES: ReadonlyArray<PropertyScope | 'all'> = ['all', 'node', 'data'];

/** `context`: a window id, or null for the default context (absent or empty). */
export function contextParam(req: SimRequest): string | null {
  const v = req.query.get('context');
  return v === null || v === '' || v === 'null' ? null : v;
}

/** Query booleans as the real server reads them: `true` or `1`. */
export function boolParam(req: SimRequest, name: string, fallback: boolean): boolean {
  const v = req.query.get(name);
  if (v === null) return fallback;
  return v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : fallback;
}
