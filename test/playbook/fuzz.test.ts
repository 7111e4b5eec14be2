// Property: whatever a valid playbook is mutated into, compiling it never crashes, and every
// problem is reported at a place inside the file, rendered without a stack trace.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { compilePlaybook } from '../../src/compile/index.js';
import { renderDiagnostics } from '../../src/diagnostics/render.js';
import { mutate, mutation } from '../helpers/mutate.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('property: mutated playbooks never crash the compiler and every error has a place in the file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-fuzz-'));
  try {
    const seeds = await Promise.all(
      ['quickstart', 'figure', 'regression', 'cohort'].map((n) =>
        readFile(join(root, 'playbooks', `${n}.yaml`), 'utf8'),
      ),
    );
    const file = join(dir, 'p.yaml');
    let withErrors = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: seeds.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (seed, mutations) => {
          const text = mutations.reduce(mutate, seeds[seed] ?? '');
          await writeFile(file, text);
          const result = compilePlaybook(file, { env: {}, checkFiles: false, displayRoot: dir });
          if (result.diagnostics.length > 0) withErrors++;
          for (const d of result.diagnostics) {
            assert.ok(d.span, `${d.code} has no place`);
            const source = result.sources.get(d.span.file);
            assert.ok(source !== undefined, `${d.code} points into an unknown file ${d.span.file}`);
            const lines = source.split('\n');
            assert.ok(
              d.span.line >= 1 && d.span.line <= lines.length,
              `${d.code} at line ${d.span.line} of ${lines.length}`,
            );
            assert.ok(
              d.span.col >= 1 && d.span.col <= (lines[d.span.line - 1] ?? '').length + 1,
              `${d.code} at column ${d.span.col}`,
            );
            assert.ok(d.message.length > 0 && !d.message.includes('\n'), `${d.code}: one-line message`);
          }
          const shown = renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color: false });
          assert.doesNotMatch(shown, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace');
          assert.doesNotMatch(
            shown,
            /must match (pattern|a schema|"then")|must NOT have|must have required property/,
            'no raw validator text',
          );
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
    assert.ok(withErrors > 150, `the mutations should break most playbooks (${withErrors} of 300 did)`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
