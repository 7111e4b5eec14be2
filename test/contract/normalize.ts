// How the official OpenAPI contract reads as the project's wire schema: each operation's JSON
// answers by status, the shared shapes as definitions, and nothing but facts (no prose, no
// examples). scripts/contract-record.ts uses it to record the contract in the repository
// (contract-1.2.0.json), which the conformance test holds schemas/workbench-api.json to.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keys that carry words or samples, not facts about the wire. */
const PROSE = new Set(['description', 'example', 'examples', 'summary', 'title', 'externalDocs', 'xml']);

export interface WireSchema {
  definitions: JsonObject;
  operations: { [operation: string]: { [status: string]: Json } };
}

function wireSchemaOf(contract: JsonObject): { schema: WireSchema; dangling: string[] } {
  const components = contract.components as JsonObject;
  const responses = (components.responses ?? {}) as JsonObject;
  const definitions: JsonObject = {};
  for (const [name, schema] of Object.entries(components.schemas as JsonObject)) definitions[name] = facts(schema);
  const operations: WireSchema['operations'] = {};
  const dangling: string[] = [];
  for (const [path, item] of Object.entries(contract.paths as JsonObject)) {
    for (const [method, op] of Object.entries(item as JsonObject)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const answers: { [status: string]: Json } = {};
      for (const [status, response] of Object.entries((op as JsonObject).responses as JsonObject)) {
        let r = response as JsonObject;
        if (typeof r.$ref === 'string') {
          const name = r.$ref.replace('#/components/responses/', '');
          const found = responses[name] as JsonObject | undefined;
          if (!found) {
            dangling.push(`${method.toUpperCase()} ${path} ${status}`);
            continue;
          }
          r = found;
        }
        const schema = ((r.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
        if (schema !== undefined) answers[status] = facts(schema);
      }
      if (Object.keys(answers).length > 0) operations[`${method.toUpperCase()} ${path}`] = answers;
    }
  }
  return { schema: { definitions, operations }, dangling };
}

/** Drops prose, turns OpenAPI's `nullable` into JSON Schema, and points refs at `definitions`. */
function facts(node: Json): Json {
  if (Array.isArray(node)) return node.map(facts);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (PROSE.has(k)) continue;
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace('#/components/schemas/', '#/definitions/');
    else out[k] = facts(v);
  }
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

/** What the repository keeps of an official contract: its facts, and which document they come from. */
export interface ContractRecord {
  contract: string;
  version: string;
  /** SHA-256 of the official document the record was read from. */
  source_sha256: string;
  /** Answers the contract refers to a response it does not define; ours has the error envelope there. */
  undefined_responses: string[];
  wire_schema: WireSchema;
}

export function contractRecordOf(contract: JsonObject, name: string, sourceSha256: string): ContractRecord {
  const { schema, dangling } = wireSchemaOf(contract);
  return {
    contract: name,
    version: String((contract.info as JsonObject).version),
    source_sha256: sourceSha256,
    undefined_responses: dangling.sort(),
    wire_schema: schema,
  };
}
