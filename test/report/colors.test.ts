// The one colour decision of every output: reporters, diagnostics and command errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useColor } from '../../src/report/colors.js';

test('FORCE_COLOR colours a pipe, its 0 or false turns colour off on a terminal, and it wins over NO_COLOR and TERM=dumb', () => {
  assert.equal(useColor(false, { FORCE_COLOR: '1' }), true);
  assert.equal(useColor({ isTTY: false }, { FORCE_COLOR: '3' }), true);
  assert.equal(useColor({}, { FORCE_COLOR: 'true' }), true);
  assert.equal(useColor(true, { FORCE_COLOR: '0' }), false);
  assert.equal(useColor({ isTTY: true }, { FORCE_COLOR: 'false' }), false);
  assert.equal(useColor(false, { FORCE_COLOR: '1', NO_COLOR: '1' }), true);
  assert.equal(useColor(true, { FORCE_COLOR: '1', TERM: 'dumb' }), true);
});

test('an empty FORCE_COLOR counts as unset, like an empty NO_COLOR', () => {
  assert.equal(useColor(false, { FORCE_COLOR: '' }), false);
  assert.equal(useColor(true, { FORCE_COLOR: '' }), true);
  assert.equal(useColor(true, { FORCE_COLOR: '', NO_COLOR: '1' }), false);
});

test('a stream and its isTTY flag decide alike', () => {
  for (const isTTY of [true, false]) {
    for (const env of [{}, { NO_COLOR: '1' }, { TERM: 'dumb' }, { TERM: 'xterm-256color' }]) {
      assert.equal(useColor({ isTTY }, env), useColor(isTTY, env), `${isTTY} ${JSON.stringify(env)}`);
    }
  }
  assert.equal(useColor({}, {}), false, 'a stream that does not say it is a terminal is not one');
});
