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
