import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { generate, LAYOUT_VALIDATOR_FILE, SCHEMA_FILE, VALIDATORS_FILE } from '../../scripts/gen-schema.js';
import { compilePlaybook } from '../../src/compile/index.js';
import { STEP_KINDS } from '../../src/steps/step-definition.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = join(root, 'test', 'golden', 'diagnostics');
const examples = readdirSync(join(root, 'playbooks'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join(root, 'playbooks', f));

/**
 * Fixtures whose mistake only the compiler can see: files, aliases, variables, which window a
 * field suits, study names, includes, the contents of a study manifest. The test checks this list is exact in both directions.
 */
const COMPILER_ONLY = new Set([
  // `file`, unless a `dicomweb` series is loaded instead: said by the compiler, in one message.
  '05-missing-field.yaml',
  '10-width-without-height.yaml',
  '11-height-without-width.yaml',
  '12-standard-view-with-position.yaml',
  '13-standard-view-with-view-up.yaml',
  '14-perspective-on-2d.yaml',
  '15-parallel-scale-on-3d.yaml',
  '16-slice-on-3d.yaml',
  '20-undefined-alias.yaml',
  '21-alias-before-definition.yaml',
  '22-unknown-variable.yaml',
  '23-unset-env.yaml',
  '24-missing-load-file.yaml',
  '25-missing-layout-file.yaml',
  '26-missing-include-file.yaml',
  '27-include-cycle.yaml',
  '33-position-window-not-mxn.yaml',
  '35-unknown-cell.yaml',
  '36-output-collision.yaml',
  '37-duplicate-study.yaml',
  '38-expect-state-unknown-field.yaml',
  '39-unterminated-template.yaml',
  '40-slice-on-editor.yaml',
  '41-include-with-foreach.yaml',
  '42-format-mismatch.yaml',
  '43-set-nothing.yaml',
  '46-alias-in-include-scope.yaml',
  '49-unknown-variable-in-include-vars.yaml',
  '51-contact-sheet-without-foreach.yaml',
  '52-contact-sheet-unknown-tile.yaml',
  '53-contact-sheet-study-in-save.yaml',
  '54-manifest-ragged-row.yaml',
  '55-manifest-read-with-the-wrong-delimiter.yaml',
  '91-display-colormap.yaml',
  '92-display-properties.yaml',
  // Which cases a cohort figure names, and which captures its tiles are, only the compiler knows.
  '97-cohort-figure-unknown-case.yaml',
  '98-cohort-figure-tile-and-save.yaml',
]);

function publishedValidator(): (data: unknown) => boolean {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  return ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
}

test('the published schema and the precompiled validators are what the registry generates', async () => {
  const fresh = await generate();
  assert.equal(
    readFileSync(SCHEMA_FILE, 'utf8'),
    fresh.schema,
    'schemas/playbook.schema.json is stale: run npm run gen-schema',
  );
  assert.equal(
    readFileSync(VALIDATORS_FILE, 'utf8'),
    fresh.validators,
    'the generated validators are stale: run npm run gen-schema',
  );
  assert.equal(
    readFileSync(LAYOUT_VALIDATOR_FILE, 'utf8'),
    fresh.layoutValidator,
    'the generated layout validator is stale: run npm run gen-schema',
  );
});

test('the published schema offers every step kind to editors', () => {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as {
    properties: { steps: { items: { anyOf: { required?: string[] }[] } } };
  };
  const offered = schema.properties.steps.items.anyOf.flatMap((a) => a.required ?? []);
  assert.deepEqual([...offered].sort(), [...STEP_KINDS].sort());
});

test('every example playbook names the schema, validates, and the schema accepts it', () => {
  const validate = publishedValidator();
  assert.ok(examples.length >= 4);
  for (const file of examples) {
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^# yaml-language-server: \$schema=\.\.\/schemas\/playbook\.schema\.json$/m, file);
    assert.ok(validate(parse(text)), `${file}: ${JSON.stringify((validate as unknown as { errors: unknown }).errors)}`);
    const result = compilePlaybook(file, { checkFiles: false, env: {} });
    assert.deepEqual(result.diagnostics, [], file);
  }
});

test('the schema rejects every fixture except those only the compiler can judge', () => {
  const validate = publishedValidator();
  const names = readdirSync(fixtures).filter((f) => /^\d+-.*\.yaml$/.test(f));
  for (const name of names) {
    let data: unknown;
    try {
      data = parse(readFileSync(join(fixtures, name), 'utf8'));
    } catch {
      assert.ok(!COMPILER_ONLY.has(name), `${name} is not even YAML`);
      continue; // rejected before any schema
    }
    const accepted = validate(data);
    if (COMPILER_ONLY.has(name))
      assert.equal(accepted, true, `${name} is listed as compiler-only but the schema rejects it`);
    else assert.equal(accepted, false, `${name} passed the schema`);
  }
  assert.ok(names.length - COMPILER_ONLY.size >= 15);
});
