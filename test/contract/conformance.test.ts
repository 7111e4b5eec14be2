// The one test that reads the official workbench contract (OpenAPI 1.2.0): it holds the
// project's wire schema, schemas/workbench-api.json, to it. The contract is not part of the
// repository; it is looked for beside it (../shared/reference/, as in CI) or where
// WBPLAY_CONTRACT names it. Where it is not at hand the test says so and checks the rest.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { wireSchemaOf } from './normalize.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CONTRACT = process.env.WBPLAY_CONTRACT ?? join(ROOT, '..', 'shared', 'reference', 'openapi-1.2.0.json');
const ours = JSON.parse(readFileSync(join(ROOT, 'schemas', 'workbench-api.json'), 'utf8')) as {
  api_version: string;
  definitions: Record<string, unknown>;
  operations: Record<string, Record<string, unknown>>;
};

/** Answers the contract refers to a response it does not define; ours has the error envelope there. */
const FILLED = [
  'PUT /rendering/editors/mxn/windows/{id}/camera 422',
  'PUT /rendering/editors/mxn/windows/{id}/selected-slice 422',
  'PUT /rendering/editors/mxn/windows/{id}/selected-position 422',
];

test('the wire schema holds every operation, status and shape of the official contract 1.2.0, and nothing else', (t) => {
  if (!existsSync(CONTRACT)) {
    t.diagnostic(
      `the official contract is not at ${CONTRACT}: conformance to it NOT checked here (it is in CI; set WBPLAY_CONTRACT to check elsewhere)`,
    );
    // Without the contract, at least the schema's own claims hold.
    assert.equal(ours.api_version, '1.2.0');
    assert.ok(Object.keys(ours.operations).length > 40);
    return;
  }
  const contract = JSON.parse(readFileSync(CONTRACT, 'utf8')) as Parameters<typeof wireSchemaOf>[0] & {
    info: { version: string };
  };
  const { schema, dangling } = wireSchemaOf(contract);
  assert.equal(ours.api_version, contract.info.version);
  assert.deepEqual(dangling.sort(), [...FILLED].sort(), "the contract's undefined responses are the known ones");
  assert.deepEqual(ours.definitions, schema.definitions);
  const filled = new Set(FILLED);
  const withoutFilled = Object.fromEntries(
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
  assert.deepEqual(withoutFilled, schema.operations);
  t.diagnostic(
    `held to ${CONTRACT}: ${Object.keys(schema.operations).length} operations, ${Object.keys(schema.definitions).length} shapes`,
  );
});
