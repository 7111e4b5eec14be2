// A file the workbench cannot load: MITK's code answers 422 FILE_READ_ERROR, the written
// references 415 UNSUPPORTED_FORMAT (see test/sim/server/load-status.test.ts). The client and
// the run's retry policy treat both alike: a typed error with the server's code and message,
// never retried.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect, WorkbenchApiError } from '../../src/client/index.js';
import { classify } from '../../src/run/classify.js';
import { withTempDir, withWorkbench } from '../helpers/workbench.js';

/** A server that answers every request with the references' 415 for a file that loads nothing. */
async function withOlderRule(fn: (url: string, requests: () => number) => Promise<void>): Promise<void> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({
        error: {
          type: 'https://docs.mitk.org/api/errors/UNSUPPORTED_FORMAT',
          code: 'UNSUPPORTED_FORMAT',
          title: 'Unsupported Format',
          message: 'No data could be loaded from file',
          status: 415,
          instance: req.url,
        },
      });
      res.writeHead(415, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, () => count);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

async function failedUpload(url: string, file: string): Promise<WorkbenchApiError> {
  const client = connect({ url });
  try {
    await client.nodes.create({ file, transfer: 'direct' });
  } catch (err) {
    assert.ok(err instanceof WorkbenchApiError, String(err));
    return err;
  } finally {
    await client.close();
  }
  assert.fail('the upload was accepted');
}

test('a file that does not load: 422 FILE_READ_ERROR (MITK) and 415 UNSUPPORTED_FORMAT (the references) both fail the step at once, with the server message', async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, 'notes.nrrd');
    await writeFile(file, 'not an image');
    await withWorkbench({}, async (wb) => {
      const err = await failedUpload(wb.url, file);
      assert.equal(err.status, 422);
      assert.equal(err.code, 'FILE_READ_ERROR');
      assert.match(err.message, /^Cannot read file 'notes\.nrrd': /);
      const seen = classify(err);
      assert.equal(seen.retryable, false);
      assert.equal(seen.info.code, 'FILE_READ_ERROR');
      assert.equal(seen.info.status, 422);
    });
    await withOlderRule(async (url, requests) => {
      const err = await failedUpload(url, file);
      assert.equal(err.status, 415);
      assert.equal(err.code, 'UNSUPPORTED_FORMAT');
      assert.equal(err.message, 'No data could be loaded from file');
      const seen = classify(err);
      assert.equal(seen.retryable, false);
      assert.equal(seen.info.code, 'UNSUPPORTED_FORMAT');
      assert.equal(requests(), 1, 'one request: the client itself never repeats an upload');
    });
  });
});
