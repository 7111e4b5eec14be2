// The fast reader must build exactly the tree the `yaml` library builds, or decline.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Document, isCollection, visit } from 'yaml';
import { fastParse } from '../../src/playbook/fast-parse.js';
import { parseWithYaml } from '../../src/playbook/parse.js';
import { SourceFile } from '../../src/playbook/source.js';
import { mutate, mutation } from '../helpers/mutate.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function reference(text: string): unknown {
  const parsed = parseWithYaml(new SourceFile('/x.yaml', 'x.yaml', text));
  return parsed.diagnostics.length > 0 ? 'error' : parsed.root;
}

function files(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, f));
}

/** Every YAML file below `dir`, at any depth; none when the folder does not exist. */
function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f) => join(dir, f));
}

/** Every playbook of the repository: the examples, the test fixtures and the golden inputs. */
const PLAYBOOKS = [join(root, 'playbooks'), join(root, 'test', 'fixtures'), join(root, 'test', 'golden')].flatMap(
  allFiles,
);

test('the examples and fixtures read the same with both parsers, and the examples take the fast path', () => {
  const examples = files(join(root, 'playbooks'));
  for (const file of [...examples, ...files(join(root, 'test', 'golden', 'diagnostics'))]) {
    const text = readFileSync(file, 'utf8');
    const fast = fastParse(text);
    if (examples.includes(file)) assert.ok(fast, `${file} should not need the slow path`);
    if (fast) assert.deepEqual(fast, reference(text), file);
  }
});

test('every playbook of the repository, at any depth, reads the same with both parsers', () => {
  assert.ok(PLAYBOOKS.length >= 60, `only ${PLAYBOOKS.length} playbooks found`);
  let fast = 0;
  for (const file of PLAYBOOKS) {
    const text = readFileSync(file, 'utf8');
    const tree = fastParse(text);
    if (!tree) continue;
    fast++;
    assert.deepEqual(tree, reference(text), file);
  }
  // Most playbooks are plain YAML; the comparison means something only if they take the fast path.
  assert.ok(fast >= PLAYBOOKS.length / 2, `the fast reader took only ${fast} of ${PLAYBOOKS.length} playbooks`);
});

test('property: on mutated playbooks the fast reader agrees with the yaml library or declines, and never throws', () => {
  const seeds = PLAYBOOKS.map((file) => readFileSync(file, 'utf8'));
  let accepted = 0;
  fc.assert(
    fc.property(
      fc.nat({ max: seeds.length - 1 }),
      fc.array(mutation, { minLength: 1, maxLength: 3 }),
      (seed, mutations) => {
        const text = mutations.reduce(mutate, seeds[seed] ?? '');
        const fast = fastParse(text);
        if (!fast) return;
        accepted++;
        assert.deepEqual(fast, reference(text), text);
      },
    ),
    { numRuns: 1500, seed: 7 },
  );
  assert.ok(accepted >= 300, `the fast reader took only ${accepted} of 1500 mutated playbooks`);
});

test('what the fast reader declines', () => {
  for (const text of [
    'a: &x 1\nb: *x\n',
    'a: !!str 1\n',
    'a: |\n  text\n',
    '---\na: 1\n',
    'a: 1\na: 2\n',
    'a:\tb\n',
    'a: "x\\u0041"\n',
    'a: plain\n  continued\n',
    'a: { b: 1,\n  c: 2 }\n',
    'a: 0x1F\n',
    'a: .inf\n',
    '"quoted key": 1\n',
  ]) {
    assert.equal(fastParse(text), undefined, JSON.stringify(text));
  }
});

test('inputs where the fast reader once disagreed with the yaml library are declined', () => {
  for (const text of [
    // A `#` right after a flow collection is not a comment: the yaml library refuses it.
    'a: [0, 0, 0]#\n',
    // A trailing colon in a flow collection is an indicator.
    'a: { of: stdmulti/:, save: x.png }\n',
    // Empty values and indented comments after the last entry: ranges by the yaml library's own rules.
    '- a:\n- b\n',
    'a:\n  b:\nc: 1\n',
    '- a: # c\n- b\n',
    'a:\n  b: 1\n  # c\n',
  ]) {
    assert.equal(fastParse(text), undefined, JSON.stringify(text));
  }
});

const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);
const scalar = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.boolean(),
  fc.constant(null),
  fc.stringMatching(/^[a-zA-Z0-9 ./${}:#_'"-]{0,12}$/),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('node'), { maxLength: 4 }),
  map: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
})).node;

test('property: on generated YAML the fast reader agrees with the yaml library or declines', () => {
  let accepted = 0;
  fc.assert(
    fc.property(
      fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }),
      fc.record({
        indent: fc.integer({ min: 2, max: 4 }),
        indentSeq: fc.boolean(),
        defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE') as fc.Arbitrary<
          'PLAIN' | 'QUOTE_DOUBLE' | 'QUOTE_SINGLE'
        >,
        comment: fc.boolean(),
        // Which nested collections are written in flow style, like `- load: { file: … }`.
        flow: fc.array(fc.boolean(), { minLength: 32, maxLength: 32 }),
      }),
      (data, style) => {
        const { comment, flow, ...options } = style;
        const doc = new Document(data);
        let n = 0;
        visit(doc, (_key, node, path) => {
          if (isCollection(node) && path.length > 1) node.flow = flow[n++ % flow.length] === true;
        });
        let text = doc.toString({ ...options, defaultKeyType: 'PLAIN', lineWidth: 0 });
        if (comment) text = text.replace(/\n/, ' # note\n');
        const fast = fastParse(text);
        if (fast) {
          accepted++;
          assert.deepEqual(fast, reference(text), text);
        }
      },
    ),
    { numRuns: 400, seed: 42 },
  );
  // The comparison means something only if the fast path takes a good share of the documents.
  assert.ok(accepted >= 100, `the fast reader took only ${accepted} of 400 documents`);
});
