// The client against a real archive: Orthanc with its DICOMweb plugin, alone and behind a proxy
// that resets, cuts short and corrupts its answers.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { Archive, SeriesCache, uidTag, type Credentials, type DicomwebError } from '../../src/dicomweb/index.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { orthancSkip, startOrthanc, type Orthanc } from '../helpers/orthanc.js';
import type { Instance } from './dicomweb-server.js';
import { demoArchive, retrying, tempDir } from './fixture.js';

const skip = await orthancSkip();
let orthanc: Orthanc;
let login: Credentials;
let ct: Instance[];
let seg: Instance;
let mr: Instance[];

before(async () => {
  if (skip) return;
  const { result, instances } = await demoArchive();
  ct = instances.filter((i) => i.patientId === 'DEMO000' && i.modality === 'CT');
  seg = instances.find((i) => i.modality === 'SEG')!;
  mr = instances.filter((i) => i.modality === 'MR');
  orthanc = await startOrthanc();
  login = { kind: 'basic', user: orthanc.user, password: orthanc.password };
  const files = result.files.filter((f) => f.includes('/dicom/ct/') || f.includes('/P2/ST2/SE1/'));
  await orthanc.push(files);
});
after(() => orthanc?.stop());

async function proxied(t: { after(fn: () => unknown): void }): Promise<{ proxy: FaultProxy; archive: Archive }> {
  const proxy = await startFaultProxy(orthanc.dicomweb);
  t.after(() => proxy.close());
  const archive = new Archive({ url: proxy.url, credentials: login });
  t.after(() => archive.close());
  return { proxy, archive };
}

const ref = (): { study: string; series: string; instances: number } => ({
  study: ct[0]!.study,
  series: ct[0]!.series,
  instances: ct.length,
});

test('Orthanc: searches page through studies and series with the counts a retrieval needs', { skip }, async (t) => {
  const archive = new Archive({ url: orthanc.dicomweb, credentials: login, pageSize: 1 });
  t.after(() => archive.close());
  const studies = await archive.searchStudies({}, ['StudyDescription', 'NumberOfStudyRelatedSeries']);
  assert.equal(studies.length, 2);
  const demo = studies.find((s) => s.PatientID === 'DEMO000')!;
  assert.equal(demo.StudyDescription, 'Demo study');
  assert.equal(demo.NumberOfStudyRelatedSeries, 1);
  assert.equal(demo.PatientName, undefined);
  const series = await archive.searchSeries(String(demo.StudyInstanceUID), { Modality: 'CT' }, ['SeriesDescription']);
  assert.deepEqual(
    series.map((s) => [s.SeriesInstanceUID, s.NumberOfSeriesRelatedInstances]),
    [[ct[0]!.series, 32]],
  );
  assert.equal((await archive.searchInstances(ct[0]!.study, ct[0]!.series)).length, 32);
  assert.deepEqual(await archive.searchStudies({ PatientID: 'NOBODY' }), []);
});

test('Orthanc: a wrong password is ARCHIVE_REFUSED (401)', { skip }, async (t) => {
  const archive = new Archive({
    url: orthanc.dicomweb,
    credentials: { ...login, password: 'wrong-password' } as Credentials,
    retry: retrying(3),
  });
  t.after(() => archive.close());
  const err = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(err.code, 'ARCHIVE_REFUSED');
  assert.equal(err.message, `the archive ${orthanc.dicomweb} refused the login (401)`);
});

test('Orthanc: a series is retrieved whole (transfer-syntax=* accepted), byte for byte', { skip }, async (t) => {
  // Straight from Orthanc, which ends WADO-RS answers by closing the connection.
  const archive = new Archive({ url: orthanc.dicomweb, credentials: login });
  t.after(() => archive.close());
  for (let i = 0; i < 3; i++) {
    const cache = new SeriesCache(await tempDir());
    const got = await archive.retrieveSeries(ref(), cache);
    assert.equal(got.files.length, 32);
    assert.equal(got.fetchedInstances, 32);
    const sent = new Map(ct.map((i) => [cache.instanceName(i.sop), i.bytes]));
    for (const f of got.files) assert.ok((await readFile(f)).equals(sent.get(f.split('/').pop()!)!), f);
  }
  const { proxy, archive: through } = await proxied(t);
  assert.equal((await through.retrieveSeries(ref(), new SeriesCache(await tempDir()))).files.length, 32);
  assert.deepEqual(
    proxy.requests.map((r) => [r.method, r.status]),
    [['GET', 200]],
    'one request for the series through the proxy',
  );
});

test('Orthanc behind a reset mid-body: the parts that arrived stay, the rest come one by one', { skip }, async (t) => {
  const { proxy, archive } = await proxied(t);
  // Each part is a 19,522-byte slice and about 100 bytes of framing: 200 kB hold ten parts (the
  // tenth complete only if the delimiter after it made it through too). A reset also discards
  // what the client had received but not yet read, so on a busy machine fewer may be kept.
  proxy.fault({ kind: 'reset-after', bytes: 200_000, method: 'GET', path: /\/series\/[\d.]+$/ });
  const cache = new SeriesCache(await tempDir());
  const got = await archive.retrieveSeries(ref(), cache);
  assert.equal(got.files.length, 32);
  assert.equal(got.fetchedInstances, 32);
  const single = proxy.requests.filter((r) => r.path.includes('/instances/')).length;
  assert.ok(single >= 22 && single < 32, `${single} fetched one by one`);
  assert.equal(proxy.requests.filter((r) => /\/series\/[\d.]+$/.test(r.path)).length, 1, 'the series once');
  assert.deepEqual(await readdir(cache.tempDir), []);
});

test('Orthanc behind a body cut short: caught, and completed instance by instance', { skip }, async (t) => {
  const { proxy, archive } = await proxied(t);
  proxy.fault({ kind: 'truncate-after', bytes: 400_000, method: 'GET', path: /\/series\/[\d.]+$/ });
  const cache = new SeriesCache(await tempDir());
  const got = await archive.retrieveSeries(ref(), cache);
  assert.equal(got.files.length, 32);
  const single = proxy.requests.filter((r) => r.path.includes('/instances/')).length;
  assert.ok(single === 12 || single === 13, `${single} fetched one by one`);
});

test(
  'Orthanc behind a proxy that corrupts a part: NOT_DICOM names the instance when it stays corrupt',
  { skip },
  async (t) => {
    const { proxy, archive } = await proxied(t);
    const garbage = Buffer.from('<html>502 bad gateway</html>');
    proxy.fault({ kind: 'replace-part', index: 3, body: garbage, path: /\/series\/[\d.]+$/ });
    proxy.fault({ kind: 'replace-part', index: 0, body: garbage, path: /\/instances\/[\d.]+$/ });
    const cache = new SeriesCache(await tempDir());
    const err = (await archive.retrieveSeries(ref(), cache).catch((e: unknown) => e)) as DicomwebError;
    assert.equal(err.code, 'NOT_DICOM');
    assert.ok(err.sopInstanceUid !== undefined && ct.some((i) => i.sop === err.sopInstanceUid));
    assert.ok(err.message.includes(uidTag(err.sopInstanceUid!)));
    assert.equal((await readdir(cache.seriesDir(ref().study, ref().series))).length, 31);
    // The corruption was the proxy's: the next retrieval completes with that one instance.
    const got = await archive.retrieveSeries(ref(), cache);
    assert.equal(got.fetchedInstances, 1);
  },
);

test('Orthanc behind 503s with Retry-After: the retry policy gets the search through', { skip }, async (t) => {
  const proxy = await startFaultProxy(orthanc.dicomweb);
  t.after(() => proxy.close());
  const errors: DicomwebError[] = [];
  const archive = new Archive({ url: proxy.url, credentials: login, retry: retrying(3, errors) });
  t.after(() => archive.close());
  proxy.fault({ kind: 'status', status: 503, retryAfter: 1, path: /\/studies\?/, times: 2 });
  assert.equal((await archive.searchStudies({})).length, 2);
  assert.deepEqual(
    errors.map((e) => [e.status, e.retryAfterMs]),
    [
      [503, 1000],
      [503, 1000],
    ],
  );
});

test('Orthanc: STOW-RS stores a result once; the second time it is found present', { skip }, async (t) => {
  const archive = new Archive({ url: orthanc.dicomweb, credentials: login });
  t.after(() => archive.close());
  const before = await orthanc.instanceCount();
  const item = { sopInstanceUid: seg.sop, seriesInstanceUid: seg.series, bytes: new Uint8Array(seg.bytes) };
  const held = { sopInstanceUid: mr[0]!.sop, seriesInstanceUid: mr[0]!.series, bytes: new Uint8Array(mr[0]!.bytes) };
  assert.deepEqual(await archive.store(seg.study, [item]), { stored: [seg.sop], present: [] });
  assert.equal(await orthanc.instanceCount(), before + 1);
  assert.deepEqual(await archive.store(seg.study, [item]), { stored: [], present: [seg.sop] });
  assert.deepEqual(await archive.store(mr[0]!.study, [held]), { stored: [], present: [mr[0]!.sop] });
  assert.equal(await orthanc.instanceCount(), before + 1);
});
