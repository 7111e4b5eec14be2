import assert from 'node:assert/strict';
import { test } from 'node:test';
import { float, floats, WorkbenchUsageError } from '../../src/client/index.js';
import { toJson } from '../../src/client/json-body.js';

test('floats keep a fraction, integers stay integers', () => {
  assert.equal(
    toJson({ opacity: float(1), layer: 1, scale: float(0.25), big: float(1e21), neg: float(-2) }),
    '{"opacity":1.0,"layer":1,"scale":0.25,"big":1e+21,"neg":-2.0}',
  );
  assert.equal(toJson(floats([0, 1, 0.5])), '[0.0,1.0,0.5]');
  assert.equal(
    toJson({ type: 'ColorProperty', value: floats([1, 0, 0]) }),
    '{"type":"ColorProperty","value":[1.0,0.0,0.0]}',
  );
});

test('everything else is written as JSON.stringify writes it', () => {
  const v = {
    s: 'a"b\u00e9\n',
    b: true,
    n: null,
    arr: [1, 'x', { k: false }],
    skip: undefined,
    nested: { deep: [[]] },
  };
  assert.equal(toJson(v), JSON.stringify(v));
  assert.equal(JSON.parse(toJson(v)).s, v.s);
});

test('non-finite numbers are refused rather than written as null', () => {
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.throws(
      () => toJson({ x: bad }),
      (e: unknown) => e instanceof WorkbenchUsageError && e.code === 'INVALID_ARGUMENT' && e.message.includes('body.x'),
    );
    assert.throws(() => toJson([float(bad)]), WorkbenchUsageError);
  }
  assert.throws(() => toJson({ f: () => 1, big: 1n }), /bigint cannot be sent/);
});
