import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  FloatLiteral,
  JsonSyntaxError,
  MAX_JSON_DEPTH,
  parseJson,
  plain,
  writeJson,
} from '../../../src/volume/json-literals.js';

test('parseJson keeps whether a number was written with a fraction or exponent', () => {
  const v = parseJson(' { "a" : 1 , "b":1.0,"c":[ -2, 3e2, 0.5E-1 ], "d" : { "e" : -0 } } ') as Record<string, unknown>;
  assert.equal(v.a, 1);
  assert.deepEqual(v.b, new FloatLiteral(1));
  assert.deepEqual(v.c, [-2, new FloatLiteral(300), new FloatLiteral(0.05)]);
  assert.equal(Object.is((v.d as { e: number }).e, -0), true);
});

test('parseJson agrees with JSON.parse on strings, escapes, duplicates and __proto__', () => {
  const text = '{"s":"a\\"b\\\\c\\u00e9\\n","__proto__":{"x":1},"k":1,"k":2,"t":true,"f":false,"n":null,"e":[],"o":{}}';
  const ours = parseJson(text);
  assert.deepEqual(plain(ours), JSON.parse(text));
  assert.equal(Object.getPrototypeOf(ours), Object.prototype, '__proto__ stays an own key');
  assert.deepEqual(Object.keys(ours as object), Object.keys(JSON.parse(text)));
});

test('parseJson matches JSON.parse on any JSON value (property-based)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value);
      assert.deepEqual(plain(parseJson(text)), JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

test('parseJson rejects what JSON.parse rejects, with a JsonSyntaxError', () => {
  for (const bad of ['{', '[1,]', "{'a':1}", '01', '1.', 'NaN', '{"a" 1}']) {
    assert.throws(() => parseJson(bad), JsonSyntaxError, bad);
  }
});

test('parseJson takes arrays and objects nested up to MAX_JSON_DEPTH levels and refuses deeper ones before walking them', () => {
  const nest = (n: number): string => '['.repeat(n - 1) + '{"a":1}' + ']'.repeat(n - 1);
  assert.equal(MAX_JSON_DEPTH, 256);
  assert.doesNotThrow(() => parseJson(nest(MAX_JSON_DEPTH)));
  assert.throws(
    () => parseJson(nest(MAX_JSON_DEPTH + 1)),
    (e: unknown) => e instanceof JsonSyntaxError && /nested deeper than 256 levels/.test(e.message),
  );
  // The walk would overflow the stack here; the check refuses it first.
  assert.throws(() => parseJson('['.repeat(100_000) + ']'.repeat(100_000)), JsonSyntaxError);
  // Brackets inside strings, escaped quotes included, are text, not nesting.
  const inString = JSON.stringify({ s: `\\"${'['.repeat(1000)}` });
  assert.deepEqual(plain(parseJson(inString)), JSON.parse(inString));
});

test('writeJson writes float literals with a fraction and everything else as JSON.stringify does', () => {
  assert.equal(
    writeJson({
      a: new FloatLiteral(1),
      b: [new FloatLiteral(-0.5), new FloatLiteral(1e21)],
      c: 1,
      d: 'x',
      e: null,
      f: undefined,
    }),
    '{"a":1.0,"b":[-0.5,1e+21],"c":1,"d":"x","e":null}',
  );
  assert.equal(writeJson(new FloatLiteral(Number.NaN)), 'null');
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.equal(writeJson(value), JSON.stringify(value));
    }),
    { numRuns: 200 },
  );
});
