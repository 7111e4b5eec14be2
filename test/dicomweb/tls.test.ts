import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { Archive, DicomwebError } from '../../src/dicomweb/index.js';
import { tempDir } from './fixture.js';

function opensslMissing(): string | false {
  if (process.env.CI === 'true') return false;
  const run = spawnSync('openssl', ['version']);
  return run.error === undefined && run.status === 0
    ? false
    : 'openssl is not installed here (Debian package openssl); CI installs it';
}

/** An https archive whose certificate is self-signed for 127.0.0.1: its own CA, trusted nowhere. */
async function selfSigned(t: {
  after(fn: () => unknown): void;
}): Promise<{ url: string; cert: string; hits: () => number }> {
  const dir = await tempDir('wbplay-dicomweb-tls-');
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
    ].concat(['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']),
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  let hits = 0;
  const server: Server = createServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/dicom+json' });
    res.end(JSON.stringify([{ '0020000D': { vr: 'UI', Value: ['1.2.3'] } }]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/dicom-web`, cert, hits: () => hits };
}

test(
  'an https archive with its own CA: trusted through a CA file, refused without it',
  { skip: opensslMissing() },
  async (t) => {
    const { url, cert, hits } = await selfSigned(t);
    const trusting = new Archive({ url, caFile: cert, credentials: { kind: 'bearer', token: 'tls-secret' } });
    t.after(() => trusting.close());
    assert.deepEqual(await trusting.searchStudies({}), [{ StudyInstanceUID: '1.2.3' }]);
    assert.equal(hits(), 1);

    const plain = new Archive({ url, credentials: { kind: 'bearer', token: 'tls-secret' } });
    t.after(() => plain.close());
    const err = (await plain.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
    assert.ok(err instanceof DicomwebError, String(err));
    assert.equal(err.code, 'ARCHIVE_UNREACHABLE');
    assert.equal(err.retryable, false);
    assert.ok(err.message.includes(url), err.message);
    assert.match(err.message, /SELF_SIGNED|CERT|UNABLE_TO/);
    assert.match(err.hint ?? '', /NODE_EXTRA_CA_CERTS/);
    assert.ok(!err.message.includes('tls-secret'));
    assert.equal(hits(), 1, 'no request got through');
  },
);

test('NODE_EXTRA_CA_CERTS is honoured beside the system and bundled roots', { skip: opensslMissing() }, async (t) => {
  const { url, cert } = await selfSigned(t);
  const before = process.env.NODE_EXTRA_CA_CERTS;
  process.env.NODE_EXTRA_CA_CERTS = cert;
  t.after(() => {
    if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = before;
  });
  const archive = new Archive({ url });
  t.after(() => archive.close());
  assert.equal((await archive.searchStudies({})).length, 1);

  const missing = new Archive({ url, caFile: join(await tempDir(), 'nowhere.pem') });
  t.after(() => missing.close());
  const err = (await missing.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(err.code, 'ARCHIVE_UNREACHABLE');
  assert.match(err.message, /the CA file .*nowhere\.pem cannot be read/);
});
