import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { Archive, DicomwebError, type ArchiveRequest } from '../../src/dicomweb/index.js';
import { deadPort } from '../helpers/net.js';
import { startArchive } from './dicomweb-server.js';
import { basic, demoArchive, retrying } from './fixture.js';

test('studies are searched page by page (limit/offset) until a page comes back short', async (t) => {
  const { instances } = await demoArchive();
  const server = await startArchive(instances);
  t.after(() => server.close());
  const archive = new Archive({ url: server.url, pageSize: 2 });
  t.after(() => archive.close());
  const studies = await archive.searchStudies({}, ['StudyDescription', 'NumberOfStudyRelatedSeries']);
  assert.equal(studies.length, 5, 'the demo holds five studies');
  assert.equal(new Set(studies.map((s) => s.StudyInstanceUID)).size, 5, 'no study twice');
  const pages = server.seen.filter((s) => s.path === '/studies');
  assert.deepEqual(
    pages.map((p) => [p.query.get('limit'), p.query.get('offset')]),
    [
      ['2', '0'],
      ['2', '2'],
      ['2', '4'],
    ],
  );
  assert.deepEqual(pages[0]!.query.getAll('includefield'), ['00081030', '00201206'], 'keywords sent as tags');
  assert.equal(pages[0]!.headers.accept, 'application/dicom+json');
  assert.equal(typeof studies[0]!.NumberOfStudyRelatedSeries, 'number');
  assert.equal(studies[0]!.PatientName, undefined, "the patient's name is never read into attributes");
});

test('a full last page asks once more and stops at the empty one; 204 is no results', async (t) => {
  const { instances } = await demoArchive();
  const server = await startArchive(instances, { emptyIs204: true });
  t.after(() => server.close());
  const archive = new Archive({ url: server.url, pageSize: 5 });
  t.after(() => archive.close());
  assert.equal((await archive.searchStudies({})).length, 5);
  assert.deepEqual(
    server.seen.map((s) => s.query.get('offset')),
    ['0', '5'],
  );
  assert.deepEqual(await archive.searchStudies({ PatientID: 'NOBODY' }), []);
  assert.equal(server.seen.at(-1)!.query.get('PatientID'), 'NOBODY', 'the query is sent as given');
});

test('an archive that caps its pages below the limit and says so is paged on; query params reach it', async (t) => {
  const { instances } = await demoArchive();
  const server = await startArchive(instances, { maxPage: 2, warnMore: true });
  t.after(() => server.close());
  const archive = new Archive({ url: server.url, pageSize: 100 });
  t.after(() => archive.close());
  assert.equal((await archive.searchStudies({})).length, 5);
  assert.deepEqual(
    server.seen.map((s) => s.query.get('offset')),
    ['0', '2', '4'],
  );
  const studies = await archive.searchStudies({ PatientID: 'DEMO002' });
  assert.equal(studies.length, 2);
  const one = studies.find((s) => s.ModalitiesInStudy === 'MR')!;
  const series = await archive.searchSeries(String(one.StudyInstanceUID), { Modality: 'MR' }, ['SeriesDescription']);
  assert.deepEqual(
    series.map((s) => [s.Modality, s.SeriesDescription, s.NumberOfSeriesRelatedInstances]),
    [['MR', 'T1 AXIAL', 40]],
  );
  const sent = server.seen.at(-1)!;
  assert.equal(sent.path, `/studies/${one.StudyInstanceUID}/series`);
  assert.equal(sent.query.get('Modality'), 'MR');
});

test('401 is ARCHIVE_REFUSED naming the archive and status, never retried, and the credentials appear nowhere', async (t) => {
  const { instances } = await demoArchive();
  const password = 'pa55-word-do-not-show';
  const server = await startArchive(instances, { authorization: basic('user', 'right') });
  t.after(() => server.close());
  const records: ArchiveRequest[] = [];
  const archive = new Archive({
    url: server.url,
    credentials: { kind: 'basic', user: 'user', password },
    retry: retrying(3),
    onRequest: (r) => records.push(r),
  });
  t.after(() => archive.close());
  const err = await archive.searchStudies({ PatientID: 'DEMO001' }).catch((e: unknown) => e);
  assert.ok(err instanceof DicomwebError);
  assert.equal(err.code, 'ARCHIVE_REFUSED');
  assert.equal(err.status, 401);
  assert.equal(err.retryable, false);
  assert.equal(err.message, `the archive ${server.url} refused the login (401)`);
  assert.equal(server.seen.length, 1, 'a refusal is not retried');
  assert.equal(server.seen[0]!.headers.authorization, basic('user', password), 'Basic on the request');
  const shown = [err.message, JSON.stringify(err), inspect(err, { depth: 5 }), JSON.stringify(records)].join('\n');
  for (const secret of [password, Buffer.from(`user:${password}`).toString('base64')])
    assert.ok(!shown.includes(secret), 'the credentials are in no message, field or record');
  assert.deepEqual(records, [
    {
      method: 'GET',
      path: '/studies',
      query: ['PatientID', 'limit', 'offset'],
      status: 401,
      ms: records[0]!.ms,
      bytes: records[0]!.bytes,
    },
  ]);
  assert.ok(!JSON.stringify(records).includes('DEMO001'), 'records hold query names, never values');
});

test('a bearer token goes on every request', async (t) => {
  const { instances } = await demoArchive();
  const server = await startArchive(instances, { authorization: 'Bearer tok-123' });
  t.after(() => server.close());
  const archive = new Archive({ url: server.url, credentials: { kind: 'bearer', token: 'tok-123' }, pageSize: 2 });
  t.after(() => archive.close());
  assert.equal((await archive.searchStudies({})).length, 5);
  assert.ok(server.seen.every((s) => s.headers.authorization === 'Bearer tok-123'));
});

test('503 with Retry-After is retryable with the wait it asked for, and the retry policy retries it', async (t) => {
  const { instances } = await demoArchive();
  const server = await startArchive(instances, {
    before: (_seen, res, count) => {
      if (count > 2) return false;
      res.writeHead(503, { 'retry-after': '7' }).end();
      return true;
    },
  });
  t.after(() => server.close());
  const errors: DicomwebError[] = [];
  const archive = new Archive({ url: server.url, retry: retrying(3, errors) });
  t.after(() => archive.close());
  assert.equal((await archive.searchStudies({})).length, 5);
  assert.equal(server.seen.length, 3, 'two 503s, then the answer');
  assert.deepEqual(
    errors.map((e) => [e.code, e.status, e.retryable, e.retryAfterMs]),
    [
      ['ARCHIVE_ERROR', 503, true, 7000],
      ['ARCHIVE_ERROR', 503, true, 7000],
    ],
  );
});

test('without a retry policy a request runs once; other 4xx are not retryable; 429 with a date is', async (t) => {
  const { instances } = await demoArchive();
  let status = 503;
  const server = await startArchive(instances, {
    before: (_seen, res) => {
      const when = new Date(Date.now() + 60_000).toUTCString();
      res.writeHead(status, status === 429 ? { 'retry-after': when } : {}).end();
      return true;
    },
  });
  t.after(() => server.close());
  const archive = new Archive({ url: server.url });
  t.after(() => archive.close());
  const e503 = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(e503.code, 'ARCHIVE_ERROR');
  assert.equal(server.seen.length, 1);
  status = 400;
  const e400 = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.deepEqual([e400.code, e400.status, e400.retryable], ['ARCHIVE_ERROR', 400, false]);
  status = 429;
  const e429 = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(e429.retryable, true);
  assert.ok(e429.retryAfterMs! > 55_000 && e429.retryAfterMs! <= 60_000, `${e429.retryAfterMs}`);
});

test('answers that are not DICOM JSON are ARCHIVE_BAD_RESPONSE', async (t) => {
  const { instances } = await demoArchive();
  let body = '<html>login page</html>';
  const server = await startArchive(instances, {
    before: (_seen, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      return true;
    },
  });
  t.after(() => server.close());
  const archive = new Archive({ url: server.url });
  t.after(() => archive.close());
  for (const answer of ['<html>login page</html>', '{"not":"an array"}', '[1,2]']) {
    body = answer;
    const err = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
    assert.equal(err.code, 'ARCHIVE_BAD_RESPONSE', answer);
    assert.match(err.message, new RegExp(server.url.replace(/[.:/]/g, '\\$&')));
  }
});

test('an archive that ignores offset is caught instead of paged forever', async (t) => {
  const { instances } = await demoArchive();
  const server = await startArchive(instances, {
    before: (seen) => {
      seen.query.set('offset', '0');
      return false;
    },
  });
  t.after(() => server.close());
  const archive = new Archive({ url: server.url, pageSize: 2 });
  t.after(() => archive.close());
  const err = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.equal(err.code, 'ARCHIVE_BAD_RESPONSE');
  assert.match(err.message, /ignores the offset/);
  assert.equal(server.seen.length, 2);
});

test('nothing listening is ARCHIVE_UNREACHABLE naming the URL, not retryable, with one record', async (t) => {
  const port = await deadPort();
  const url = `http://127.0.0.1:${port}/dicom-web`;
  const records: ArchiveRequest[] = [];
  const archive = new Archive({ url: `${url}/`, onRequest: (r) => records.push(r) });
  t.after(() => archive.close());
  const err = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.ok(err instanceof DicomwebError);
  assert.equal(err.code, 'ARCHIVE_UNREACHABLE');
  assert.equal(err.retryable, false);
  assert.ok(err.message.includes(url), err.message);
  assert.match(err.message, /ECONNREFUSED/);
  assert.equal(records.length, 1);
  assert.equal(records[0]!.status, undefined);
});

test('a dropped connection before the answer and a timeout are retryable ARCHIVE_UNREACHABLE', async (t) => {
  const { instances } = await demoArchive();
  let mode: 'reset' | 'stall' = 'reset';
  const server = await startArchive(instances, {
    before: async (_seen, res) => {
      if (mode === 'reset') res.socket?.resetAndDestroy();
      // undici's timers are coarse (about half a second): the stall outlasts them.
      else await new Promise((resolve) => setTimeout(resolve, 2000));
      return mode === 'reset';
    },
  });
  t.after(() => server.close());
  const archive = new Archive({ url: server.url, timeoutMs: 150 });
  t.after(() => archive.close());
  const reset = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.deepEqual([reset.code, reset.retryable], ['ARCHIVE_UNREACHABLE', true], reset.message);
  mode = 'stall';
  const slow = (await archive.searchStudies({}).catch((e: unknown) => e)) as DicomwebError;
  assert.deepEqual([slow.code, slow.retryable], ['ARCHIVE_UNREACHABLE', true], slow.message);
  assert.match(slow.message, /no answer within 150 ms/);
});
