import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Validates JSON answers against the project's own wire schema, schemas/workbench-api.json:
 * for each operation (METHOD and path template under /api/v1), the body of each status. The
 * conformance test (test/contract/) holds that schema to the official contract.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const WIRE_SCHEMA_PATH = join(REPO_ROOT, 'schemas', 'workbench-api.json');

interface WireSchema {
  operations: Record<string, Record<string, unknown>>;
}

let loaded: { doc: WireSchema; ajv: Ajv; cache: Map<string, ValidateFunction> } | undefined;

function wire(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const doc = JSON.parse(readFileSync(WIRE_SCHEMA_PATH, 'utf8')) as WireSchema & Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  ajv.addSchema(doc, 'wire');
  loaded = { doc, ajv, cache: new Map() };
  return loaded;
}

const templates = (): string[] => [
  ...new Set(Object.keys(wire().doc.operations).map((op) => op.slice(op.indexOf(' ') + 1))),
];

/** The path template for a concrete path, e.g. `/api/v1/datastorage/nodes/node_1` → `/datastorage/nodes/{uid}`. */
export function templateOf(path: string): string | undefined {
  const bare = path.replace(/^\/api\/v1/, '').split('?')[0]!;
  const parts = bare.split('/').filter(Boolean);
  const fits = templates().filter((t) => {
    const segs = t.split('/').filter(Boolean);
    return segs.length === parts.length && segs.every((s, i) => s.startsWith('{') || s === parts[i]);
  });
  // Literal segments win over parameters (`/windows/{id}` vs a literal sub-resource).
  const literals = (t: string): number => t.split('/').filter((s) => s !== '' && !s.startsWith('{')).length;
  return fits.sort((a, b) => literals(b) - literals(a))[0];
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Problems of `body` against the wire schema for the operation and status; empty when it conforms. */
export function contractErrors(method: string, path: string, status: number, body: unknown): string[] {
  const w = wire();
  const template = templateOf(path);
  if (template === undefined) throw new Error(`the wire schema has no path for ${path}`);
  const operation = `${method.toUpperCase()} ${template}`;
  const answers = w.doc.operations[operation];
  if (!answers) throw new Error(`the wire schema has no ${operation}`);
  if (!(String(status) in answers))
    throw new Error(
      `the wire schema lists no ${status} for ${operation} (it lists ${Object.keys(answers).join(', ')})`,
    );
  const key = pointer('operations', operation, String(status));
  let validate = w.cache.get(key);
  if (!validate) {
    validate = w.ajv.compile({ $ref: `wire#/${key}` });
    w.cache.set(key, validate);
  }
  return validate(body)
    ? []
    : (validate.errors ?? []).map(
        (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
      );
}

/** Throws with every problem when `body` does not conform. */
export function assertContract(method: string, path: string, status: number, body: unknown): void {
  const errors = contractErrors(method, path, status, body);
  if (errors.length > 0)
    throw new Error(
      `${method} ${path} ${status} does not match the wire schema:\n  ${errors.join('\n  ')}\n${JSON.stringify(body).slice(0, 600)}`,
    );
}
