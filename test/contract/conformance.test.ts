// The project's wire schema, schemas/workbench-api.json, held to the official workbench contract
// (OpenAPI 1.2.0). The contract's facts are recorded in contract-1.2.0.json (each operation's
// JSON answers by status and the shared shapes, without prose), made from the official document
// by scripts/contract-record.ts, which also records the document's SHA-256. Every clone checks
// the schema against that record, field by field.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { contractRecordOf, type ContractRecord, type WireSchema } from './normalize.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const record = JSON.parse(readFileSync(join(import.meta.dirname, 'contract-1.2.0.json'), 'utf8')) as ContractRecord;
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

test('the wire schema holds every operation, status and shape of the official contract 1.2.0, and nothing else', (t) => {
  const schema = oursAsContract();
  assert.equal(ours.api_version, record.version);
  // Shapes first, so a change of either side says where it is.
  assert.deepEqual(schema.definitions, record.wire_schema.definitions);
  assert.deepEqual(schema.operations, record.wire_schema.operations);
  t.diagnostic(
    `held to the record of ${record.contract} (sha256 ${record.source_sha256.slice(0, 12)}…): ${Object.keys(schema.operations).length} operations, ${Object.keys(schema.definitions).length} shapes`,
  );
});

test('a contract is recorded as facts: answers by status, shapes as definitions, no prose', () => {
  const contract = {
    info: { version: '9.9.9', title: 'Example' },
    paths: {
      '/nodes/{uid}': {
        description: 'a node',
        get: {
          summary: 'Read a node',
          responses: {
            '200': {
              description: 'the node',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
            },
            '404': { $ref: '#/components/responses/NotFound' },
            '409': { $ref: '#/components/responses/Missing' },
          },
        },
        delete: { responses: { '204': { description: 'gone' } } },
      },
      '/nodes/{uid}/data': {
        get: { responses: { '200': { content: { 'application/octet-stream': { schema: { type: 'string' } } } } } },
      },
    },
    components: {
      schemas: {
        Node: {
          type: 'object',
          description: 'a node of the data storage',
          properties: {
            uid: { type: 'string', example: 'node_1' },
            parent_uid: { type: 'string', nullable: true },
            kind: { type: 'string', enum: ['image', 'label'], nullable: true },
            data: { $ref: '#/components/schemas/Data', nullable: true },
          },
        },
        Data: { type: 'object', title: 'Data' },
      },
      responses: {
        NotFound: {
          description: 'not found',
          content: { 'application/json': { schema: { type: 'object', required: ['error'] } } },
        },
      },
    },
  };
  assert.deepEqual(contractRecordOf(contract, 'Example', 'ab'.repeat(32)), {
    contract: 'Example',
    version: '9.9.9',
    source_sha256: 'ab'.repeat(32),
    undefined_responses: ['GET /nodes/{uid} 409'],
    wire_schema: {
      definitions: {
        Node: {
          type: 'object',
          properties: {
            uid: { type: 'string' },
            parent_uid: { type: ['string', 'null'] },
            kind: { type: ['string', 'null'], enum: ['image', 'label', null] },
            data: { anyOf: [{ $ref: '#/definitions/Data' }, { type: 'null' }] },
          },
        },
        Data: { type: 'object' },
      },
      operations: {
        'GET /nodes/{uid}': {
          '200': { $ref: '#/definitions/Node' },
          '404': { type: 'object', required: ['error'] },
        },
      },
    },
  });
});
