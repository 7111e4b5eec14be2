// Records an official workbench contract (OpenAPI JSON) in the repository as the conformance
// test reads it: test/contract/contract-<version>.json, facts only. Run it when a new contract
// version is published, then align schemas/workbench-api.json until the test passes.
//   node --import tsx scripts/contract-record.ts path/to/openapi-1.2.0.json
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { contractRecordOf } from '../test/contract/normalize.js';

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node --import tsx scripts/contract-record.ts <openapi.json>');
  process.exit(2);
}
const bytes = readFileSync(file);
const record = contractRecordOf(
  JSON.parse(bytes.toString('utf8')) as Parameters<typeof contractRecordOf>[0],
  `MITK Workbench REST API, OpenAPI (${basename(file)})`,
  createHash('sha256').update(bytes).digest('hex'),
);
const out = join(import.meta.dirname, '..', 'test', 'contract', `contract-${record.version}.json`);
writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
console.log(
  `${out}: ${Object.keys(record.wire_schema.operations).length} operations, ${Object.keys(record.wire_schema.definitions).length} shapes`,
);
