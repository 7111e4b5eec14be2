// Golden tests of the rendered errors: one fixture per kind of mistake, the exact text checked
// in next to it. Run with UPDATE_GOLDENS=1 to rewrite the expected files after a deliberate change.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compilePlaybook } from '../../../src/compile/index.js';
import { renderDiagnostics } from '../../../src/diagnostics/render.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));
const update = process.env.UPDATE_GOLDENS === '1';

export const FIXTURES = readdirSync(here)
  .filter((f) => /^\d+-.*\.yaml$/.test(f))
  .sort();

/** Renders a fixture's diagnostics as the CLI would, without colour, paths shown from the repository root. */
export function renderFixture(name: string): { text: string; codes: string[] } {
  const result = compilePlaybook(join(here, name), { env: {}, displayRoot: root, checkFiles: true });
  const text = result.diagnostics.length === 0 ? 'no errors\n' : renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color: false });
  return { text, codes: result.diagnostics.map((d) => d.code) };
}

test('there is a fixture for every kind of error the issue lists, and more', () => {
  assert.ok(FIXTURES.length >= 30, `only ${FIXTURES.length} fixtures`);
});

for (const name of FIXTURES) {
  test(`diagnostics of ${name}`, () => {
    const expectedFile = join(here, name.replace(/\.yaml$/, '.expected.txt'));
    const { text } = renderFixture(name);
    assert.doesNotMatch(text, /no errors/, 'every fixture is invalid');
    assert.doesNotMatch(text, /\n\s+at .*\(.*:\d+:\d+\)/, 'no stack trace');
    if (update) writeFileSync(expectedFile, text);
    assert.equal(text, readFileSync(expectedFile, 'utf8'));
  });
}
