import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setWriteFault } from '../../src/files/atomic-write.js';
import { Archive, DicomwebError, SeriesCache } from '../../src/dicomweb/index.js';
import { startArchive } from './dicomweb-server.js';
import { demoCt, tempDir } from './fixture.js';

const sha16 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

test('the series folder is computable before retrieval; size and clean count every file', async () => {
  const root = await tempDir();
  const cache = new SeriesCache(root);
  assert.equal(cache.seriesDir('1.2.3', '1.2.3.4'), join(root, sha16('1.2.3'), sha16('1.2.3.4')));
  assert.equal(await cache.size(), 0);
  assert.deepEqual(await cache.clean(), { files: 0, bytes: 0 });
  const dir = cache.seriesDir('1.2.3', '1.2.3.4');
  await mkdir(dir, { recursive: true });
  await mkdir(join(root, '.tmp'));
  await writeFile(join(dir, 'a.dcm'), Buffer.alloc(1000));
  await writeFile(join(dir, 'b.dcm'), Buffer.alloc(24));
  await writeFile(join(root, '.tmp', 'x.part'), Buffer.alloc(10));
  assert.equal(await cache.size(), 1034);
  assert.deepEqual(await cache.clean(), { files: 3, bytes: 1034 });
  assert.deepEqual(await readdir(root), [], 'the root stays, empty');
  assert.equal(await cache.complete({ study: '1.2.3', series: '1.2.3.4', instances: 2 }), undefined);
});

test('a manifest that cannot be written is CACHE_WRITE naming the cache; the series stays incomplete', async (t) => {
  const ct = await demoCt();
  const server = await startArchive(ct.instances);
  t.after(() => server.close());
  const archive = new Archive({ url: server.url });
  t.after(() => archive.close());
  const cache = new SeriesCache(await tempDir());
  const ref = { study: ct.study, series: ct.series, instances: 32 };
  setWriteFault((path) =>
    path.endsWith('.json')
      ? Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      : undefined,
  );
  t.after(() => setWriteFault(undefined));
  const err = (await archive.retrieveSeries(ref, cache).catch((e: unknown) => e)) as DicomwebError;
  assert.ok(err instanceof DicomwebError);
  assert.equal(err.code, 'CACHE_WRITE');
  assert.equal(err.message, `could not write the cache at ${cache.root}: the disk is full (ENOSPC)`);
  assert.equal(await cache.complete(ref), undefined);
  setWriteFault(undefined);
  const got = await archive.retrieveSeries(ref, cache);
  assert.equal(got.fetchedInstances, 0, 'the files were whole; only the manifest was missing');
  assert.equal(server.seen.length, 1);
});

test('a full disk while parts stream in: CACHE_WRITE naming the cache, no part left behind, no manifest', async (t) => {
  // Not a tempDir(): its removal must wait for the unmount.
  const root = await mkdtemp(join(tmpdir(), 'wbplay-dicomweb-full-'));
  try {
    // 200 kB hold about ten of the 32 slices (19.5 kB each).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=200k', 'none', root], { stdio: 'ignore' });
  } catch {
    if (process.env.CI === 'true') throw new Error('CI must be able to mount a tmpfs (run as root)');
    await rm(root, { recursive: true, force: true });
    t.skip('a tmpfs cannot be mounted here (needs root); the manifest test above covers CACHE_WRITE through the seam');
    return;
  }
  t.after(async () => {
    execFileSync('umount', [root]);
    await rm(root, { recursive: true, force: true });
  });
  const ct = await demoCt();
  const server = await startArchive(ct.instances);
  t.after(() => server.close());
  const archive = new Archive({ url: server.url });
  t.after(() => archive.close());
  const cache = new SeriesCache(root);
  const ref = { study: ct.study, series: ct.series, instances: 32 };
  const err = (await archive.retrieveSeries(ref, cache).catch((e: unknown) => e)) as DicomwebError;
  assert.ok(err instanceof DicomwebError, String(err));
  assert.equal(err.code, 'CACHE_WRITE');
  assert.equal(err.retryable, false);
  assert.equal(err.message, `could not write the cache at ${root}: the disk is full (ENOSPC)`);
  assert.deepEqual(await readdir(cache.tempDir), [], 'the part being written is removed');
  assert.equal(await cache.readManifest(ct.study, ct.series), undefined);
  const kept = await readdir(cache.seriesDir(ct.study, ct.series));
  assert.ok(kept.length > 0 && kept.length < 32, `${kept.length} whole files stay for the next run`);
  assert.equal(server.seen.length, 1, 'no instance-by-instance retrieval onto a full disk');
});
