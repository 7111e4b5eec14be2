import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isoTime } from '../../src/result/iso-time.js';

test('isoTime is Date#toISOString, for any time from 1970 to 9999 and across second boundaries', () => {
  // Neighbours of a second's edges, in the order a clock gives them and backwards.
  const edges = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 59_999, 60_000, 1_798_675_199_999, 1_798_675_200_000];
  for (const ms of [...edges, ...[...edges].reverse()])
    assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.integer({ min: 0, max: 2_000 }), (ms, later) => {
      assert.equal(isoTime(ms), new Date(ms).toISOString());
      assert.equal(isoTime(ms + later), new Date(ms + later).toISOString());
    }),
  );
});

test('isoTime without an argument is now', () => {
  const before = Date.now();
  const now = Date.parse(isoTime());
  assert.ok(now >= before && now <= Date.now());
});
