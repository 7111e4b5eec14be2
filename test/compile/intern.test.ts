import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { Interner } from '../../src/compile/intern.js';

const dir = await mkdtemp(join(tmpdir(), 'wbplay-intern-'));
after(() => rm(dir, { recursive: true, force: true }));

test('equal values come back as one frozen copy; different ones stay apart', () => {
  const interner = new Interner();
  const a = interner.value({ span: { file: 'p.yaml', line: 3, col: 5 }, args: { of: ['x', 1] } });
  const b = interner.value({ span: { file: 'p.yaml', line: 3, col: 5 }, args: { of: ['x', 1] } });
  const c = interner.value({ span: { file: 'p.yaml', line: 4, col: 5 }, args: { of: ['x', 1] } });
  assert.equal(a, b);
  assert.notEqual(a, c);
  assert.equal(a.args, c.args);
  assert.deepEqual(c, { span: { file: 'p.yaml', line: 4, col: 5 }, args: { of: ['x', 1] } });
  assert.ok(Object.isFrozen(a) && Object.isFrozen(a.span) && Object.isFrozen(a.args.of));
  assert.throws(() => {
    (a.span as { line: number }).line = 9;
  }, TypeError);
});

test('values that only look alike are not merged', () => {
  const interner = new Interner();
  const withUndefined = interner.value({ a: 1, b: undefined });
  const without = interner.value({ a: 1 });
  assert.notEqual(withUndefined, without);
  assert.ok('b' in withUndefined);
  assert.notEqual(interner.value({ n: -0 }), interner.value({ n: 0 }));
  assert.notEqual(interner.value(['1']), interner.value([1]));
  assert.notEqual(interner.value({ a: 1, b: 2 }), interner.value({ b: 2, a: 1 }));
  // Class instances may hold state: kept as they are, never shared or frozen.
  const date = new Date(0);
  const held = interner.value({ at: date });
  assert.equal(held.at, date);
  assert.ok(!Object.isFrozen(date));
});

test('nesting, member names that look like keys, and a __proto__ member stay apart and intact', () => {
  const interner = new Interner();
  assert.notEqual(interner.value({ a: { b: 'x' } }), interner.value({ a: { b: 'y' } }));
  assert.notEqual(interner.value([['a']]), interner.value(['a']));
  assert.notEqual(interner.value({ 'a:b': 1 }), interner.value({ a: 'b:1' }));
  assert.notEqual(interner.value(['a,b']), interner.value(['a', 'b']));
  assert.equal(interner.value({ a: [{ b: [1, 'x'] }] }), interner.value({ a: [{ b: [1, 'x'] }] }));
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
  const kept = interner.value(parsed);
  assert.ok(Object.hasOwn(kept, '__proto__'));
  assert.equal(Object.getPrototypeOf(kept), Object.prototype);
  assert.deepEqual(Object.keys(kept), ['__proto__', 'x']);
});

test("a cohort's cases are compiled when read: each study's own steps, a fresh copy each time", async () => {
  const file = join(dir, 'cohort.yaml');
  await writeFile(
    file,
    `version: 1
name: Cohort
foreach:
  list: [{ name: a, z: 1 }, { name: b, z: 2 }, { name: c, z: 1 }]
steps:
  - position: [0, 0, "\${study.z}"]
  - screenshot: { of: stdmulti/axial, save: "out/\${study.name}.png" }
`,
  );
  const plan = loadPlaybook(file);
  const [a, b, c] = plan.cases as [(typeof plan.cases)[0], (typeof plan.cases)[0], (typeof plan.cases)[0]];
  // The plan holds no case's steps: equal steps are equal, never one shared object.
  assert.deepEqual(a.steps[0], c.steps[0]);
  assert.notEqual(a.steps[0], c.steps[0]);
  assert.notEqual(a.steps, a.steps);
  assert.deepEqual(b.steps[0]!.args, { at: [0, 0, 2] });
  const shot = (x: typeof a) => x.steps[1] as Extract<(typeof a.steps)[number], { kind: 'screenshot' }>;
  assert.match(shot(a).args.save, /out[/\\]a\.png$/);
  assert.match(shot(b).args.save, /out[/\\]b\.png$/);
  assert.deepEqual(b.outputs, [shot(b).args.save]);
  // Read whole, a case is the same plain data as before.
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(b)) as object), [
    'id',
    'name',
    'study',
    'inputs',
    'outputs',
    'steps',
  ]);
});

test('a plan of one case is kept as compiled: nothing to share, nothing walked or frozen', async () => {
  const file = join(dir, 'single.yaml');
  await writeFile(file, 'version: 1\nname: Single\nsteps:\n  - position: [0, 0, 1]\n  - position: [0, 0, 1]\n');
  const [only] = loadPlaybook(file).cases;
  assert.ok(only);
  assert.ok(!Object.isFrozen(only.steps) && !Object.isFrozen(only.steps[0]!.args));
  // Equal arguments of two steps stay two objects: sharing is across a cohort's cases.
  assert.notEqual(only.steps[0]!.args, only.steps[1]!.args);
  const off = new Interner(false);
  const value = { a: [1] };
  assert.equal(off.value(value), value);
  assert.ok(!Object.isFrozen(value));
});
