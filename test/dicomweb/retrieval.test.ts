import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Archive, DicomwebError, SeriesCache, uidTag, type ArchiveRequest } from '../../src/dicomweb/index.js';
import { startArchive, type ServerOptions } from './dicomweb-server.js';
import { demoCt, retrying, tempDir } from './fixture.js';

const sha16 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

async function setUp(t: { after(fn: () => unknown): void }, options: ServerOptions = {}, archiveOptions = {}) {
  const ct = await demoCt();
  const server = await startArchive(ct.instances, options);
  t.after(() => server.close());
  const records: ArchiveRequest[] = [];
  const archive = new Archive({ url: server.url, onRequest: (r) => records.push(r), ...archiveOptions });
  t.after(() => archive.close());
  const cache = new SeriesCache(await tempDir());
  const ref = { study: ct.study, series: ct.series, instances: ct.instances.length };
  const perInstance = (): number => server.seen.filter((s) => s.path.includes('/instances/')).length;
  return { ct, server, archive, cache, ref, records, perInstance };
}

test('a series is streamed into its cache folder, each file under its hashed SOP Instance UID, with a manifest', async (t) => {
  const { ct, server, archive, cache, ref, records } = await setUp(t);
  const got = await archive.retrieveSeries(ref, cache);
  const dir = join(cache.root, sha16(ct.study), sha16(ct.series));
  assert.equal(got.dir, dir);
  assert.equal(cache.seriesDir(ct.study, ct.series), dir);
  assert.equal(got.fetched, true);
  assert.equal(got.fetchedInstances, 32);
  assert.equal(got.files.length, 32);
  assert.deepEqual(got.files, [...got.files].sort());
  assert.deepEqual(
    (await readdir(dir)).sort(),
    ct.instances.map((i) => `${sha16(i.sop)}.dcm`).sort(),
    'only DICOM files',
  );
  for (const i of ct.instances) assert.ok((await readFile(join(dir, `${sha16(i.sop)}.dcm`))).equals(i.bytes));
  assert.equal(
    got.bytes,
    ct.instances.reduce((n, i) => n + i.bytes.length, 0),
  );
  const manifest = JSON.parse(await readFile(join(cache.root, sha16(ct.study), `${sha16(ct.series)}.json`), 'utf8'));
  assert.deepEqual([manifest.study, manifest.series, manifest.instances], [ct.study, ct.series, 32]);
  assert.equal(Object.keys(manifest.files).length, 32);
  assert.deepEqual(await readdir(cache.tempDir), [], 'no part left in transit');

  const wado = server.seen.filter((s) => s.method === 'GET' && !s.path.endsWith('/instances'));
  assert.equal(wado.length, 1, 'one series request, nothing instance by instance');
  assert.equal(wado[0]!.headers.accept, 'multipart/related; type="application/dicom"; transfer-syntax=*');
  assert.equal(records.length, 1);
  assert.equal(records[0]!.path, `/studies/${uidTag(ct.study)}/series/${uidTag(ct.series)}`);
  assert.ok(records[0]!.bytes > got.bytes, 'the record counts the multipart body');
  assert.ok(!JSON.stringify(records).includes(ct.series), 'no UID in records');

  const again = await archive.retrieveSeries(ref, cache);
  assert.deepEqual([again.fetched, again.fetchedInstances, again.files], [false, 0, got.files]);
  assert.equal(server.seen.length, 1, 'a complete series costs no request');
  assert.deepEqual(await cache.complete(ref), again);
  assert.equal(await cache.complete({ ...ref, instances: 33 }), undefined, 'complete only at the count given');
});

test('a reset after some parts: the parts that arrived are kept and only the missing instances are fetched', async (t) => {
  // What the cache held when the client listed the series: the series answer's share.
  let kept: string[] = [];
  const { ct, archive, cache, ref, perInstance, server, records } = await setUp(
    t,
    {
      part: ({ level, index }) => (level === 'series' && index === 10 ? 'reset' : 'ok'),
      before: async (seen) => {
        if (seen.path.endsWith('/instances')) kept = await readdir(cache.seriesDir(ct.study, ct.series));
        return false;
      },
    },
    { retry: retrying(3) },
  );
  const got = await archive.retrieveSeries(ref, cache);
  assert.equal(got.files.length, 32);
  assert.equal(got.fetchedInstances, 32);
  // Ten parts were sent whole; a reset may discard bytes the client had not read yet.
  assert.ok(kept.length > 0 && kept.length <= 10, `${kept.length} kept from the series answer`);
  const fetched = server.seen.filter((s) => s.path.includes('/instances/')).map((s) => s.path.split('/').pop()!);
  assert.deepEqual(
    fetched.map((sop) => cache.instanceName(sop)).sort(),
    ct.instances
      .map((i) => cache.instanceName(i.sop))
      .filter((n) => !kept.includes(n))
      .sort(),
    'exactly the missing instances, each once',
  );
  assert.equal(perInstance(), 32 - kept.length);
  assert.equal(server.seen.filter((s) => s.path.endsWith('/instances')).length, 1, 'one QIDO-RS listing');
  assert.equal(server.seen.length, 2 + fetched.length, 'the series is not asked for again, though the policy retries');
  assert.equal(records.length, server.seen.length, 'one record per exchange');
  assert.equal(records[0]!.status, 200);
  assert.deepEqual(await readdir(cache.tempDir), []);
});

test('a body cut short inside a part: the part is dropped, the complete ones kept, the rest fetched', async (t) => {
  const { archive, cache, ref, perInstance } = await setUp(t, {
    part: ({ level, index }) => (level === 'series' && index === 5 ? 'truncate' : 'ok'),
  });
  const got = await archive.retrieveSeries(ref, cache);
  assert.equal(got.files.length, 32);
  assert.equal(perInstance(), 27);
  for (const f of got.files) assert.ok((await stat(f)).size > 1000);
});

test('a cut-short instance answer is ARCHIVE_BAD_RESPONSE (retryable) when no retry policy is given', async (t) => {
  const { archive, cache, ref, server } = await setUp(t, {
    part: ({ level, index }) =>
      level === 'series' && index === 3 ? 'truncate' : level === 'instance' ? 'truncate' : 'ok',
  });
  const err = (await archive.retrieveSeries(ref, cache).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(err.code, 'ARCHIVE_BAD_RESPONSE');
  assert.equal(err.retryable, true);
  assert.match(err.message, /ended before its closing boundary/);
  assert.ok(err.message.includes(server.url));
  assert.equal(await cache.complete(ref), undefined, 'no manifest');
  assert.deepEqual(await readdir(cache.tempDir), []);
});

test('a part that is not DICOM is not kept; when its own retrieval is no DICOM either, NOT_DICOM names it', async (t) => {
  const { ct, archive, cache, ref, perInstance } = await setUp(t, {
    part: ({ index, sop }) => (index === 7 || sop === ct7 ? 'garbage' : 'ok'),
  });
  let ct7 = '';
  ct7 = ct.instances[7]!.sop;
  const err = (await archive.retrieveSeries(ref, cache).catch((e: unknown) => e)) as DicomwebError;
  assert.ok(err instanceof DicomwebError);
  assert.equal(err.code, 'NOT_DICOM');
  assert.equal(err.sopInstanceUid, ct7);
  assert.ok(err.message.includes(uidTag(ct7)), err.message);
  assert.ok(!err.message.includes(ct7), 'the UID itself is not shown');
  assert.equal(perInstance(), 1);
  const dir = cache.seriesDir(ct.study, ct.series);
  assert.equal((await readdir(dir)).length, 31, 'the others are kept');
  assert.equal(await cache.complete(ref), undefined);
});

test('a part that is not DICOM in the series answer is fetched again on its own', async (t) => {
  const { archive, cache, ref, perInstance } = await setUp(t, {
    part: ({ level, index }) => (level === 'series' && index === 2 ? 'garbage' : 'ok'),
  });
  const got = await archive.retrieveSeries(ref, cache);
  assert.equal(got.files.length, 32);
  assert.equal(perInstance(), 1);
});

test('fewer instances than QIDO-RS reported is SERIES_INCOMPLETE, with no manifest', async (t) => {
  const { archive, cache, ref } = await setUp(t);
  const err = (await archive
    .retrieveSeries({ ...ref, instances: 40 }, cache)
    .catch((e: unknown) => e)) as DicomwebError;
  assert.equal(err.code, 'SERIES_INCOMPLETE');
  assert.match(err.message, /delivered 32 of the 40 instances of series uid:[0-9a-f]{8}/);
  assert.equal(await cache.readManifest(ref.study, ref.series), undefined);
});

test('a cached file cut short later is found by its size and fetched again, alone', async (t) => {
  const { archive, cache, ref, perInstance, server } = await setUp(t);
  const first = await archive.retrieveSeries(ref, cache);
  const victim = first.files[4]!;
  const size = (await stat(victim)).size;
  await truncate(victim, 100);
  assert.equal(await cache.complete(ref), undefined, 'a file cut short makes the series incomplete');
  const before = server.seen.length;
  const again = await archive.retrieveSeries(ref, cache);
  assert.equal(again.fetchedInstances, 1);
  assert.equal(perInstance(), 1);
  assert.equal(server.seen.length - before, 2, 'the listing and the one instance');
  assert.equal((await stat(victim)).size, size);
  assert.ok(await cache.complete(ref));
});

test('an archive that refuses transfer-syntax=* is asked again without it', async (t) => {
  const { archive, cache, ref, server } = await setUp(t, {
    before: (seen, res) => {
      if (!String(seen.headers.accept).includes('transfer-syntax')) return false;
      res.writeHead(406).end();
      return true;
    },
  });
  const got = await archive.retrieveSeries(ref, cache);
  assert.equal(got.files.length, 32);
  assert.deepEqual(
    server.seen.map((s) => s.headers.accept),
    ['multipart/related; type="application/dicom"; transfer-syntax=*', 'multipart/related; type="application/dicom"'],
  );
});

test('a 503 before the series answer goes to the retry policy; a refusal ends the retrieval', async (t) => {
  let refuse = false;
  const { archive, cache, ref, server } = await setUp(
    t,
    {
      before: (_seen, res, count) => {
        if (refuse) res.writeHead(403).end();
        else if (count === 1) res.writeHead(503, { 'retry-after': '0' }).end();
        else return false;
        return true;
      },
    },
    { retry: retrying(3) },
  );
  assert.equal((await archive.retrieveSeries(ref, cache)).files.length, 32);
  assert.equal(server.seen.length, 2);
  refuse = true;
  const other = new SeriesCache(await tempDir());
  const err = (await archive.retrieveSeries(ref, other).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(err.code, 'ARCHIVE_REFUSED');
  assert.equal(server.seen.length, 3, 'no listing, no instance requests after a refusal');
});

test('answers ended by closing the connection (as Orthanc sends WADO-RS) are read to their end, however slowly', async (t) => {
  const { archive, ref, server } = await setUp(t, { closeDelimited: true });
  // Each retrieval writes to disk more slowly than loopback delivers: undici's parser pauses,
  // and the server's close then arrives while it is paused (nodejs/undici#5360 without the guard).
  for (let i = 0; i < 8; i++) {
    const got = await archive.retrieveSeries(ref, new SeriesCache(await tempDir()));
    assert.equal(got.files.length, 32);
  }
  assert.equal(server.seen.length, 8, 'one series request each, nothing instance by instance');
});
