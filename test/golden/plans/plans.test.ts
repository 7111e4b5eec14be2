// The plan of every example playbook, checked in. Demo data is generated once into a temporary
// folder; its path, the repository's path and content hashes are masked.
// Run with UPDATE_GOLDENS=1 to rewrite the expected files after a deliberate change.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compilePlaybook, formatPlan } from '../../../src/compile/index.js';
import { writeDemoData } from '../../../src/sim/demo-data.js';
import { writeDemoDicom } from '../../../src/sim/demo-dicom.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
const update = process.env.UPDATE_GOLDENS === '1';
let tmp = '';

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'wbplay-plans-'));
  await writeDemoData(join(tmp, 'demo'));
  await writeDemoDicom(join(tmp, 'demo'));
  await writeDemoData(join(tmp, 'cohort'), { cohort: 4 });
});

after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function mask(text: string): string {
  return text
    .split(tmp)
    .join('<tmp>')
    .split(root)
    .join('<repo>')
    .replace(/[0-9a-f]{64}/g, '<sha256>');
}

const EXAMPLES: Record<string, string> = { quickstart: 'demo', figure: 'demo', regression: 'demo', cohort: 'cohort', dicom: 'demo' };

for (const [name, data] of Object.entries(EXAMPLES)) {
  test(`plan of playbooks/${name}.yaml`, async () => {
    const result = compilePlaybook(join(root, 'playbooks', `${name}.yaml`), { vars: { data: join(tmp, data) }, env: {}, displayRoot: root, checkFiles: true });
    assert.deepEqual(result.diagnostics, []);
    assert.ok(result.plan);
    const json = mask(`${JSON.stringify(result.plan, null, 2)}\n`);
    const text = mask(formatPlan(result.plan));
    const jsonFile = join(here, `${name}.plan.json`);
    const textFile = join(here, `${name}.plan.txt`);
    if (update) {
      await writeFile(jsonFile, json);
      await writeFile(textFile, text);
    }
    assert.equal(json, await readFile(jsonFile, 'utf8'));
    assert.equal(text, await readFile(textFile, 'utf8'));
  });
}
