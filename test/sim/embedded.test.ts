import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbeddedInWorker } from '../../src/sim/embedded.js';

test('a reference workbench runs in a worker thread, answers, and stops', async () => {
  const wb = await startEmbeddedInWorker();
  try {
    const res = await fetch(`${wb.url}/api/v1/health`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { data: { status: string } };
    assert.equal(body.data.status, 'healthy');
  } finally {
    await wb.stop();
  }
  await assert.rejects(fetch(`${wb.url}/api/v1/health`), 'nothing answers after stop');
});

test("a worker workbench gives its thread's heap figures, and says so when it has ended instead of never answering", async () => {
  const wb = await startEmbeddedInWorker();
  let stopped = false;
  try {
    const heap = await wb.heap!();
    assert.ok(heap.used_heap_size > 0 && heap.used_heap_size <= heap.total_heap_size);
    const asked = wb.heap!();
    await wb.stop();
    stopped = true;
    // Asked just before the stop: answered, or refused once the thread is gone; never pending.
    await asked.catch((err: Error) => assert.match(err.message, /ended before/));
    await assert.rejects(wb.heap!(), /ended before/);
  } finally {
    if (!stopped) await wb.stop();
  }
});
