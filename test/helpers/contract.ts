import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Validates JSON answers against the official workbench contract (OpenAPI 3.0.3, 1.2.0). The
 * contract is read where the project's references live, `../shared/reference/` next to the
 * repository, never copied into it; `WBPLAY_CONTRACT` names another file.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const CONTRACT_PATH = process.env.WBPLAY_CONTRACT ?? join(REPO_ROOT, '..', 'shared', 'reference', 'openapi-1.2.0.json');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Contract {
  doc: JsonObject;
  ajv: Ajv;
  cache: Map<string, ValidateFunction>;
}

let loaded: Contract | undefined;

function contract(): Contract {
  if (loaded) return loaded;
  let text: string;
  try {
    text = readFileSync(CONTRACT_PATH, 'utf8');
  } catch {
    throw new Error(
      `The workbench contract is expected at ${CONTRACT_PATH} (openapi-1.2.0.json in ../shared/reference/ next to the repository). ` +
        'Put it there or set WBPLAY_CONTRACT to its path.',
    );
  }
  const doc = toJsonSchema(JSON.parse(text) as Json) as JsonObject;
  // The contract carries OpenAPI keywords ajv does not know (example, description-only refs): not strict.
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  ajv.addSchema(doc, 'contract');
  loaded = { doc, ajv, cache: new Map() };
  return loaded;
}

/**
 * OpenAPI 3.0 marks nullable values with `nullable: true`, which JSON Schema spells as a
 * `null` type (or a `null` alternative where there is no `type`, e.g. next to a `$ref`).
 */
function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = toJsonSchema(v);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/** The contract's path template for a concrete path, e.g. `/api/v1/datastorage/nodes/node_1` → `/datastorage/nodes/{uid}`. */
export function templateOf(path: string): string | undefined {
  const bare = path.replace(/^\/api\/v1/, '').split('?')[0]!;
  const parts = bare.split('/').filter(Boolean);
  const templates = Object.keys(contract().doc.paths as JsonObject);
  const fits = templates.filter((t) => {
    const segs = t.split('/').filter(Boolean);
    return segs.length === parts.length && segs.every((s, i) => s.startsWith('{') || s === parts[i]);
  });
  // Literal segments win over parameters (`/windows/{id}` vs a literal sub-resource).
  const literals = (t: string): number => t.split('/').filter((s) => s !== '' && !s.startsWith('{')).length;
  return fits.sort((a, b) => literals(b) - literals(a))[0];
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Problems of `body` against the contract's JSON schema for the operation and status; empty
 * when it conforms. Throws when the contract has no such operation or status, or when the
 * response is one of the contract's own dangling references (see the core reference §6.23).
 */
export function contractErrors(method: string, path: string, status: number, body: unknown): string[] {
  const c = contract();
  const template = templateOf(path);
  if (template === undefined) throw new Error(`the contract has no path for ${path}`);
  const op = ((c.doc.paths as JsonObject)[template] as JsonObject | undefined)?.[method.toLowerCase()] as JsonObject | undefined;
  if (!op) throw new Error(`the contract has no ${method} ${template}`);
  const responses = op.responses as JsonObject;
  let response = responses[String(status)] as JsonObject | undefined;
  if (!response) throw new Error(`the contract lists no ${status} for ${method} ${template} (it lists ${Object.keys(responses).join(', ')})`);
  let at = pointer('paths', template, method.toLowerCase(), 'responses', String(status));
  const ref = response.$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/responses/', '');
    response = ((c.doc.components as JsonObject).responses as JsonObject)[name] as JsonObject | undefined;
    if (!response) throw new Error(`${method} ${template} ${status} refers to ${ref}, which the contract does not define (a known issue of the contract)`);
    at = pointer('components', 'responses', name);
  }
  const media = (response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined;
  if (!media?.schema) throw new Error(`the contract gives no JSON schema for ${method} ${template} ${status}`);
  const key = `${at}/content/application~1json/schema`;
  let validate = c.cache.get(key);
  if (!validate) {
    validate = c.ajv.compile({ $ref: `contract#/${key}` });
    c.cache.set(key, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** Throws with every problem when `body` does not conform. */
export function assertContract(method: string, path: string, status: number, body: unknown): void {
  const errors = contractErrors(method, path, status, body);
  if (errors.length > 0) throw new Error(`${method} ${path} ${status} does not match the contract:\n  ${errors.join('\n  ')}\n${JSON.stringify(body).slice(0, 600)}`);
}
