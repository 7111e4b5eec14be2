// The project's wire schema, schemas/workbench-api.json, held to the official workbench contract
// (OpenAPI 1.2.0). What the test needs of the contract is recorded in contract-1.2.0.json: the
// SHA-256 of the contract read as a wire schema (normalize.ts), its counts and the responses it
// refers to but does not define. Every clone checks the schema against that record. Where the
// contract itself is at hand (../shared/reference/, as in CI, or WBPLAY_CONTRACT), the record is
// checked against it too, and a difference is shown field by field.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { canonicalJson, wireSchemaOf, type WireSchema } from './normalize.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CONTRACT = process.env.WBPLAY_CONTRACT ?? join(ROOT, '..', 'shared', 'reference', 'openapi-1.2.0.json');
const record = JSON.parse(readFileSync(join(import.meta.dirname, 'contract-1.2.0.json'), 'utf8')) as {
  version: string;
  wire_schema_sha256: string;
  operations: number;
  shapes: number;
  /** Answers the contract refers to a response it does not define; ours has the error envelope there. */
  undefined_responses: string[];
};
const ours = JSON.parse(readFileSync(join(ROOT, 'schemas', 'workbench-api.json'), 'utf8')) as {
  api_version: string;
  definitions: WireSchema['definitions'];
  operations: WireSchema['operations'];
};

/** Our schema as the contract reads: without the answers it leaves undefined. */
function oursAsContract(): WireSchema {
  const filled = new Set(record.undefined_responses);
  const operations = Object.fromEntries(
    Object.entries(ours.operations)
      .map(
        ([op, answers]) =>
          [
            op,
            Object.fromEntries(Object.entries(answers).filter(([status]) => !filled.has(`${op} ${status}`))),
          ] as const,
      )
      .filter(([, answers]) => Object.keys(answers).length > 0),
  );
  return { definitions: ours.definitions, operations };
}

const sha256 = (schema: WireSchema): string => createHash('sha256').update(canonicalJson(schema)).digest('hex');

test('the wire schema holds every operation, status and shape of the official contract 1.2.0, and nothing else', () => {
  const schema = oursAsContract();
  assert.equal(ours.api_version, record.version);
  assert.equal(Object.keys(schema.operations).length, record.operations);
  assert.equal(Object.keys(schema.definitions).length, record.shapes);
  assert.equal(
    sha256(schema),
    record.wire_schema_sha256,
    'schemas/workbench-api.json no longer reads as the contract; run beside the contract (or with WBPLAY_CONTRACT) to see where',
  );
});

test('the record of the contract is true to the official document, where that is at hand', (t) => {
  if (!existsSync(CONTRACT)) {
    t.diagnostic(
      `the official contract is not at ${CONTRACT}: the schema was checked against the recorded digest only (CI checks the record; set WBPLAY_CONTRACT to check it elsewhere)`,
    );
    return;
  }
  const contract = JSON.parse(readFileSync(CONTRACT, 'utf8')) as Parameters<typeof wireSchemaOf>[0] & {
    info: { version: string };
  };
  const { schema, dangling } = wireSchemaOf(contract);
  assert.equal(contract.info.version, record.version);
  assert.deepEqual(dangling.sort(), [...record.undefined_responses].sort());
  // Field by field first, so a change of either side says where it is.
  assert.deepEqual(oursAsContract().definitions, schema.definitions);
  assert.deepEqual(oursAsContract().operations, schema.operations);
  assert.equal(sha256(schema), record.wire_schema_sha256, 'the recorded digest is that of the contract');
  t.diagnostic(
    `held to ${CONTRACT}: ${Object.keys(schema.operations).length} operations, ${Object.keys(schema.definitions).length} shapes`,
  );
});
