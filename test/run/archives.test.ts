// The run's archives: each archive's credentials come from the environment variables the
// configuration names for it (the longest URL prefix that matches), else from DICOMWEB_TOKEN or
// DICOMWEB_USER and DICOMWEB_PASSWORD.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Archives } from '../../src/run/archives.js';
import { FAST_RETRY } from '../helpers/cohort.js';

const seen: IncomingMessage['headers'][] = [];
const server = createServer((req, res) => {
  seen.push(req.headers);
  res.writeHead(204).end();
});
let root = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function authorizationFor(
  url: string,
  env: NodeJS.ProcessEnv,
  credentials?: ConstructorParameters<typeof Archives>[0]['credentials'],
): Promise<string | undefined> {
  const archives = new Archives({
    cacheRoot: '/nonexistent',
    env,
    retry: FAST_RETRY,
    ...(credentials ? { credentials } : {}),
  });
  try {
    seen.length = 0;
    assert.deepEqual(await archives.search({ url, per: 'series' }), []);
    return seen[0]?.authorization;
  } finally {
    await archives.close();
  }
}

test('the variables the configuration names for an archive, by the longest prefix of its URL', async () => {
  const env = { PACS_TOKEN: 'pacs-token', OTHER_TOKEN: 'other', DICOMWEB_TOKEN: 'default' };
  const credentials = {
    [root]: { token_env: 'OTHER_TOKEN' },
    [`${root}/dicom-web`]: { token_env: 'PACS_TOKEN' },
  };
  assert.equal(await authorizationFor(`${root}/dicom-web`, env, credentials), 'Bearer pacs-token');
  assert.equal(await authorizationFor(`${root}/other`, env, credentials), 'Bearer other');
});

test('without a configuration: DICOMWEB_TOKEN, else DICOMWEB_USER and DICOMWEB_PASSWORD, else none', async () => {
  assert.equal(await authorizationFor(`${root}/dicom-web`, { DICOMWEB_TOKEN: 't' }), 'Bearer t');
  assert.equal(
    await authorizationFor(`${root}/dicom-web`, { DICOMWEB_USER: 'u', DICOMWEB_PASSWORD: 'p' }),
    `Basic ${Buffer.from('u:p').toString('base64')}`,
  );
  assert.equal(await authorizationFor(`${root}/dicom-web`, {}), undefined);
});
