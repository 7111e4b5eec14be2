import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topLevelNumberLiterals } from '../../../src/sim/routes/rendering-body.js';
import { parseScreenshotParams } from '../../../src/sim/routes/screenshot-params.js';
import { Problem } from '../../../src/sim/problem.js';

test('number literals of the top-level object keep their spelling; nested members and strings do not count', () => {
  const found = topLevelNumberLiterals(
    '{"step": 3.0, "a": {"step": 4}, "s": "7", "n": -12, "e": 1e3, "arr": [1, 2], "q\\"k": 5}',
  );
  assert.deepEqual(
    [...found.entries()],
    [
      ['step', '3.0'],
      ['n', '-12'],
      ['e', '1e3'],
      ['q"k', '5'],
    ],
  );
});

const messageOf = (query: string): string => {
  try {
    parseScreenshotParams(new URLSearchParams(query));
  } catch (e) {
    assert.ok(e instanceof Problem && e.code === 'INVALID_REQUEST');
    return e.message;
  }
  assert.fail(`accepted ${query}`);
};

test('screenshot parameters: defaults, pairing, stoi-like integers, limits and the real messages', () => {
  assert.deepEqual(parseScreenshotParams(new URLSearchParams('')), { format: 'png' });
  assert.deepEqual(parseScreenshotParams(new URLSearchParams('format=jpeg&width=10&height=8192')), {
    format: 'jpeg',
    width: 10,
    height: 8192,
  });
  // std::stoi reads the leading digits and ignores the rest.
  assert.deepEqual(parseScreenshotParams(new URLSearchParams('width=12abc&height=+7')), {
    format: 'png',
    width: 12,
    height: 7,
  });
  assert.equal(messageOf('format=jpg'), "Invalid format 'jpg'. Must be 'png' or 'jpeg'.");
  assert.equal(messageOf('format=PNG'), "Invalid format 'PNG'. Must be 'png' or 'jpeg'.");
  assert.equal(messageOf('width=10'), "Both 'width' and 'height' must be provided together.");
  assert.equal(messageOf('height=10'), "Both 'width' and 'height' must be provided together.");
  assert.equal(messageOf('width=abc&height=10'), "'width' and 'height' must be integers.");
  assert.equal(messageOf('width=&height=10'), "'width' and 'height' must be integers.");
  assert.equal(messageOf('width=99999999999&height=10'), "'width' and 'height' must be integers.");
  assert.equal(messageOf('width=0&height=10'), "'width' and 'height' must be positive integers.");
  assert.equal(messageOf('width=10&height=-3'), "'width' and 'height' must be positive integers.");
  assert.equal(messageOf('width=8193&height=10'), "'width' and 'height' must not exceed 8192.");
  // The format is checked first.
  assert.equal(messageOf('format=gif&width=10'), "Invalid format 'gif'. Must be 'png' or 'jpeg'.");
});
