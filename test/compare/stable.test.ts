import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompareError } from '../../src/image/image-error.js';
import { captureStable } from '../../src/compare/stable.js';

/** A capture source that returns the given frames in order, repeating the last. */
function frames(...list: string[]): { capture: () => Promise<Uint8Array>; calls: () => number } {
  let n = 0;
  return {
    capture: async () => new TextEncoder().encode(list[Math.min(n++, list.length - 1)]),
    calls: () => n,
  };
}

test('returns once two consecutive captures are identical', async () => {
  const source = frames('a', 'b', 'c', 'c', 'd');
  const result = await captureStable(source.capture, { timeoutMs: 10_000, intervalMs: 1 });
  assert.equal(new TextDecoder().decode(result.bytes), 'c');
  assert.equal(result.captures, 4);
  assert.equal(source.calls(), 4);
});

test('an already stable view takes two captures', async () => {
  const result = await captureStable(frames('x').capture, { timeoutMs: 10_000, intervalMs: 0 });
  assert.equal(result.captures, 2);
});

test('a view that never settles ends in a typed error when the time is up', async () => {
  let n = 0;
  const capture = async () => Uint8Array.of(n++ & 255, n >> 8);
  await assert.rejects(captureStable(capture, { timeoutMs: 30, intervalMs: 5 }), (error: unknown) => {
    assert.ok(error instanceof CompareError);
    assert.equal(error.code, 'CAPTURE_UNSTABLE');
    assert.match(error.message, /did not settle: \d+ consecutive captures within 30 ms/);
    assert.match(error.hint ?? '', /timeout/);
    return true;
  });
  assert.ok(n >= 2);
});

test('a failing capture ends the wait with its own error', async () => {
  let n = 0;
  const capture = async () => {
    if (++n === 2) throw new Error('workbench went away');
    return Uint8Array.of(n);
  };
  await assert.rejects(captureStable(capture, { timeoutMs: 10_000, intervalMs: 0 }), /workbench went away/);
});

test('an abort stops the wait', async () => {
  const controller = new AbortController();
  let n = 0;
  const capture = async () => {
    if (++n === 3) controller.abort(new Error('stopped by the user'));
    return Uint8Array.of(n);
  };
  await assert.rejects(
    captureStable(capture, { timeoutMs: 10_000, intervalMs: 1, signal: controller.signal }),
    /stopped by the user/,
  );
});
