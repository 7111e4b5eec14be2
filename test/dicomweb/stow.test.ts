import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Archive, DicomwebError, uidTag } from '../../src/dicomweb/index.js';
import { startArchive, type Instance, type ServerOptions } from './dicomweb-server.js';
import { demoArchive, retrying } from './fixture.js';

/** The archive holds the demo CT but its last three slices; the SEG of the study is a result to store. */
async function setUp(t: { after(fn: () => unknown): void }, options: ServerOptions = {}, retries = 0) {
  const { instances } = await demoArchive();
  const ct = instances.filter((i) => i.patientId === 'DEMO000' && i.modality === 'CT');
  const seg = instances.find((i) => i.modality === 'SEG')!;
  const server = await startArchive(ct.slice(0, 29), options);
  t.after(() => server.close());
  const archive = new Archive({ url: server.url, retry: retrying(retries) });
  t.after(() => archive.close());
  const posts = () => server.seen.filter((s) => s.method === 'POST');
  const toStore = (list: Instance[]) =>
    list.map((i) => ({ sopInstanceUid: i.sop, seriesInstanceUid: i.series, bytes: new Uint8Array(i.bytes) }));
  return { ct, seg, server, archive, posts, toStore, study: ct[0]!.study };
}

test('STOW-RS sends only the instances the archive does not hold, as multipart/related', async (t) => {
  const { ct, seg, server, archive, posts, toStore, study } = await setUp(t);
  const result = await archive.store(study, toStore([seg, ct[0]!, ct[1]!]));
  assert.deepEqual(result, { stored: [seg.sop], present: [ct[0]!.sop, ct[1]!.sop] });
  assert.equal(posts().length, 1);
  const post = posts()[0]!;
  assert.equal(post.path, `/studies/${study}`);
  assert.deepEqual(post.stowed, [seg.sop], 'the held instances are not sent');
  assert.match(String(post.headers['content-type']), /^multipart\/related; type="application\/dicom"; boundary=\S+$/);
  assert.equal(post.headers.accept, 'application/dicom+json');
  assert.equal(Number(post.headers['content-length']) > seg.bytes.length, true);
  const listings = server.seen.filter((s) => s.path.endsWith('/instances'));
  assert.equal(listings.length, 2, 'one QIDO-RS listing per target series');
  assert.ok(
    server.instances.some((i) => i.sop === seg.sop && i.bytes.equals(seg.bytes)),
    'stored byte for byte',
  );

  const again = await archive.store(study, toStore([seg]));
  assert.deepEqual(again, { stored: [], present: [seg.sop] });
  assert.equal(posts().length, 1, 'nothing sent the second time');
});

test('FailedSOPSequence is STORE_FAILED naming the failed instances by tag and reason', async (t) => {
  const { seg, archive, toStore, study } = await setUp(t, {
    stow: (received) => ({
      keep: [],
      status: 409,
      failed: received.map((i) => ({ sop: i.sop, reason: 0xa900 })),
    }),
  });
  const err = (await archive.store(study, toStore([seg])).catch((e: unknown) => e)) as DicomwebError;
  assert.ok(err instanceof DicomwebError);
  assert.equal(err.code, 'STORE_FAILED');
  assert.equal(err.status, 409);
  assert.equal(err.retryable, false);
  assert.equal(
    err.message,
    `the archive ${archive.label} refused 1 of 1 instance(s): ${uidTag(seg.sop)} (0xA900 the data set does not match its SOP class)`,
  );
  assert.ok(!err.message.includes(seg.sop));
});

test('202 with some failures is STORE_FAILED for those; a 200 reports what was taken', async (t) => {
  let mode: 'partial-fail' | 'ok' = 'partial-fail';
  const { ct, seg, archive, toStore, study } = await setUp(t, {
    stow: (received) =>
      mode === 'partial-fail'
        ? { keep: received.slice(1), status: 202, failed: [{ sop: received[0]!.sop, reason: 0xc000 }] }
        : { keep: received, status: 200 },
  });
  const err = (await archive.store(study, toStore([ct[29]!, ct[30]!])).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(err.code, 'STORE_FAILED');
  assert.equal(err.status, 202);
  assert.match(err.message, /refused 1 of 2 instance\(s\): uid:[0-9a-f]{8} \(0xC000 cannot understand\)/);
  assert.equal(err.sopInstanceUid, ct[29]!.sop);
  mode = 'ok';
  assert.deepEqual(await archive.store(study, toStore([seg, ct[3]!, ct[29]!])), {
    stored: [seg.sop, ct[29]!.sop],
    present: [ct[3]!.sop],
  });
});

test('a 503 with Retry-After is retried after looking again: what the failed POST stored is not sent twice', async (t) => {
  const { ct, archive, posts, toStore, study, server } = await setUp(
    t,
    {
      stow: (received, attempt) =>
        attempt === 1 ? { keep: received.slice(0, 1), status: 503, retryAfter: '1' } : { keep: received, status: 200 },
    },
    3,
  );
  const last = ct.slice(29);
  const result = await archive.store(study, toStore(last));
  assert.deepEqual(
    posts().map((p) => p.stowed),
    [last.map((i) => i.sop), last.slice(1).map((i) => i.sop)],
    'the second POST leaves out what the first stored',
  );
  assert.deepEqual(result, { stored: last.map((i) => i.sop), present: [] });
  assert.equal(server.seen.filter((s) => s.path.endsWith('/instances')).length, 2, 'presence looked up again');
});

test('a POST is not retried on 500, nor on 503 without Retry-After', async (t) => {
  let status = 500;
  const { seg, archive, posts, toStore, study } = await setUp(t, { stow: () => ({ keep: [], status }) }, 3);
  const e500 = (await archive.store(study, toStore([seg])).catch((e: unknown) => e)) as DicomwebError;
  assert.deepEqual([e500.code, e500.status, e500.retryable], ['ARCHIVE_ERROR', 500, false]);
  assert.equal(posts().length, 1);
  status = 503;
  const e503 = (await archive.store(study, toStore([seg])).catch((e: unknown) => e)) as DicomwebError;
  assert.deepEqual([e503.code, e503.retryable], ['ARCHIVE_ERROR', false]);
  assert.equal(posts().length, 2);
});
