// schemas/report.schema.json is the published shape of report.json: the golden report and the
// report of a real run (failures, retries, artefacts, a cohort) must validate, and a report of
// another version must not.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { loadPlaybook } from '../../src/compile/index.js';
import { createReporters } from '../../src/report/factory.js';
import { runPlans } from '../../src/run/runner.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { startTestWorkbench } from '../helpers/workbench.js';

const root = join(import.meta.dirname, '..', '..');
const ajv = new Ajv({ allErrors: true, strict: false });
(addFormatsModule as unknown as (a: Ajv) => void)(ajv);
const validate = ajv.compile(JSON.parse(await readFile(join(root, 'schemas', 'report.schema.json'), 'utf8')) as object);

function assertValid(report: unknown, what: string): void {
  assert.ok(validate(report), `${what}: ${JSON.stringify(validate.errors, null, 1)}`);
}

test('the golden report validates, and a report of another version does not', async () => {
  const report = JSON.parse(await readFile(join(root, 'test', 'golden', 'reports', 'report.json'), 'utf8')) as {
    version: number;
  };
  assertValid(report, 'golden report.json');
  assert.equal(validate({ ...report, version: 2 }), false);
});

test('the report of a real run with a retried step, a failed assertion, artefacts and a trace validates', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-report-schema-'));
  const wb = await startTestWorkbench({ faults: '503@POST /api/v1/datastorage/nodes#1' });
  t.after(async () => {
    await wb.stop();
    await rm(dir, { recursive: true, force: true });
  });
  await writeDemoData(join(dir, 'data'), { cohort: 2 });
  await writeFile(
    join(dir, 'p.yaml'),
    [
      'version: 1',
      'name: Schema',
      'foreach:',
      '  csv: data/studies.csv',
      'steps:',
      '  - load: { file: "${study.path}/ct.nrrd", as: ct }',
      '  - screenshot: { of: stdmulti/axial, save: "${out}/${study.name}.png" }',
      '  - expect_image: { of: stdmulti/axial, golden: "goldens/${study.name}.png" }',
      '  - expect_state: { of: node:ct, equals: { opacity: 0.5 } }',
      '',
    ].join('\n'),
  );
  const out = join(dir, 'out');
  const plan = loadPlaybook(join(dir, 'p.yaml'), { vars: { out } });
  await runPlans({
    plans: [plan],
    workbenches: { urls: [wb.url] },
    reporter: createReporters(['json'], { outputDir: out, stream: { write: () => true }, isTTY: false, env: {} }),
    outputDir: out,
    trace: true,
    retry: { retries: 2, minDelayMs: 5, maxDelayMs: 10, factor: 1 },
  });
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
    status: string;
    cases: Array<{ steps: Array<{ attempts: unknown[] }> }>;
  };
  assert.equal(report.status, 'failed');
  assert.ok(
    report.cases.some((c) => c.steps.some((s) => s.attempts.length > 1)),
    'a step was retried',
  );
  assertValid(report, 'report.json of the run');
});
