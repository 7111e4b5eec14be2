// A real Orthanc 1.10 with its DICOMweb plugin 1.7, started per test file from Debian's packages
// and loaded with the demo DICOM export, asked with plain fetch. Besides checking the harness,
// these tests pin down what this archive answers where DICOMweb leaves a client guessing (paging,
// counts, extra fields, date ranges, what a STOW-RS status really means), so a change of Orthanc
// that moves any of it fails here first. The last tests start Orthanc from
// examples/orthanc/orthanc.json, so the example keeps working. Skipped where Orthanc is not
// installed, except with CI=true.
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import dicomParser from 'dicom-parser';
import { writeDemoDicom, type DemoDicomResult } from '../../src/sim/demo-dicom.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { orthancSkip, readOrthancConfig, startOrthanc, type Orthanc } from '../helpers/orthanc.js';

const skip = await orthancSkip();
const EXAMPLE = 'examples/orthanc/orthanc.json';
const MULTIPART_DICOM = /^multipart\/related; type="application\/dicom"; boundary=(\S+)$/;

type DicomJson = Record<string, { vr: string; Value?: unknown[] }>;

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The first value of a tag in a DICOM JSON object. */
function first(item: DicomJson, tag: string): unknown {
  return item[tag]?.Value?.[0];
}

/** The parts' headers and bodies of a multipart body. */
function parts(body: Buffer, boundary: string): { headers: string; body: Buffer }[] {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const found: { headers: string; body: Buffer }[] = [];
  // The first delimiter has no CRLF before it; pretend it had, so every delimiter looks alike.
  const all = Buffer.concat([Buffer.from('\r\n'), body]);
  let at = all.indexOf(delimiter);
  while (at >= 0) {
    const lineEnd = all.indexOf('\r\n', at + delimiter.length);
    if (all.subarray(at + delimiter.length, lineEnd).toString() === '--') break;
    const blank = all.indexOf('\r\n\r\n', lineEnd);
    const next = all.indexOf(delimiter, blank);
    assert.ok(blank > 0 && next > 0, 'every part has headers and a following delimiter');
    found.push({ headers: all.subarray(lineEnd + 2, blank).toString(), body: all.subarray(blank + 4, next) });
    at = next;
  }
  return found;
}

function sopInstanceUid(file: Uint8Array): string | undefined {
  return dicomParser.parseDicom(file, { untilTag: 'x7fe00010' }).string('x00080018');
}

/** A STOW-RS body: each file a part. `close` false leaves off the closing delimiter, as a cut upload would. */
function stowBody(files: readonly Buffer[], boundary: string, close = true): Buffer {
  return Buffer.concat([
    ...files.flatMap((f) => [
      Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`),
      f,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(close ? `--${boundary}--\r\n` : ''),
  ]);
}

/** A GET through node:http, which shows the connection headers that fetch keeps to itself. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a real Orthanc with the DICOMweb plugin', { skip }, () => {
  let orthanc: Orthanc;
  let dir = '';
  let demo: DemoDicomResult;
  let startMs = 0;
  let authorization = '';

  const qido = async (path: string): Promise<DicomJson[]> => {
    const res = await fetch(`${orthanc.dicomweb}${path}`, {
      headers: { authorization, accept: 'application/dicom+json' },
    });
    assert.equal(res.status, 200, `QIDO-RS ${path}`);
    return (await res.json()) as DicomJson[];
  };
  const stow = async (body: Buffer, boundary: string): Promise<{ status: number; answer: DicomJson }> => {
    const res = await fetch(`${orthanc.dicomweb}/studies`, {
      method: 'POST',
      body,
      headers: {
        authorization,
        accept: 'application/dicom+json',
        'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}`,
      },
    });
    return { status: res.status, answer: (await res.json()) as DicomJson };
  };
  const referenced = (answer: DicomJson): string[] =>
    ((answer['00081199']?.Value ?? []) as DicomJson[]).map((item) => String(first(item, '00081155')));
  const ctFiles = (): string[] => demo.files.filter((f) => f.startsWith(demo.ct.dir));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wbplay-orthanc-test-'));
    demo = await writeDemoDicom(dir);
    const t0 = Date.now();
    orthanc = await startOrthanc();
    startMs = Date.now() - t0;
    authorization = basic(orthanc.user, orthanc.password);
    await orthanc.push(demo.files);
  });
  after(async () => {
    await orthanc?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('starts in well under 5 s on loopback with both plugins, and holds what was pushed', async () => {
    assert.ok(startMs < 3000, `started in ${startMs} ms`);
    assert.match(orthanc.root, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(orthanc.dicomweb, `${orthanc.root}/dicom-web`);
    const plugins = (await (await fetch(`${orthanc.root}/plugins`, { headers: { authorization } })).json()) as string[];
    assert.ok(plugins.includes('dicom-web') && plugins.includes('gdcm'), plugins.join(', '));
    assert.equal(await orthanc.instanceCount(), demo.files.length);
    await access(orthanc.storage);
  });

  test('QIDO-RS lists the studies as application/dicom+json with basic auth; 401 without it', async () => {
    const res = await fetch(`${orthanc.dicomweb}/studies`, { headers: { authorization } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/dicom+json');
    const studies = (await res.json()) as DicomJson[];
    // The demo study and the tree's four.
    assert.equal(studies.length, 1 + demo.tree.studies);
    assert.deepEqual(
      new Set(studies.map((s) => first(s, '00100020'))),
      new Set(['DEMO000', 'DEMO001', 'DEMO002', 'DEMO003']),
    );

    const anonymous = await fetch(`${orthanc.dicomweb}/studies`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic /);
    const wrong = await fetch(`${orthanc.dicomweb}/studies`, {
      headers: { authorization: basic(orthanc.user, 'wrong') },
    });
    assert.equal(wrong.status, 401);
  });

  test('WADO-RS hands a series out as multipart/related application/dicom, one instance a part', async () => {
    const [series] = await qido('/series?PatientID=DEMO000&Modality=CT');
    assert.ok(series);
    const url = `${orthanc.dicomweb}/studies/${first(series, '0020000D')}/series/${first(series, '0020000E')}`;
    const res = await fetch(url, { headers: { authorization } });
    assert.equal(res.status, 200);
    const boundary = MULTIPART_DICOM.exec(res.headers.get('content-type') ?? '')?.[1];
    assert.ok(boundary, `content type ${res.headers.get('content-type')}`);
    // Finding: no Content-Length and no chunking; the answer ends when Orthanc closes the connection.
    assert.equal(res.headers.get('content-length'), null);
    const got = parts(Buffer.from(await res.arrayBuffer()), boundary);
    assert.equal(got.length, demo.ct.slices);
    for (const part of got) {
      assert.match(part.headers, /^Content-Type: application\/dicom$/m);
      // Finding: each part carries its own Content-Length.
      assert.equal(/^Content-Length: (\d+)$/m.exec(part.headers)?.[1], String(part.body.length));
      assert.equal(part.body.subarray(128, 132).toString(), 'DICM');
    }
    const sent = await Promise.all(ctFiles().map(async (f) => sopInstanceUid(await readFile(f))));
    assert.deepEqual(new Set(got.map((p) => sopInstanceUid(p.body))), new Set(sent));

    const raw = await rawGet(url, { authorization });
    assert.equal(raw.headers.connection, 'close');
    assert.equal(raw.headers['transfer-encoding'], undefined);
    // Finding: a bare application/dicom Accept is refused rather than answered with multipart.
    const single = await fetch(url, { headers: { authorization, accept: 'application/dicom' } });
    assert.equal(single.status, 400);
    await single.arrayBuffer();
  });

  test('finding: QIDO-RS answers keep connections alive for 1 s only', async () => {
    const raw = await rawGet(`${orthanc.dicomweb}/studies`, { authorization });
    assert.equal(raw.headers['keep-alive'], 'timeout=1');
  });

  test('finding: series-level QIDO-RS honours limit and offset, in the unpaged order', async () => {
    const all = (await qido('/series')).map((s) => first(s, '0020000E'));
    assert.equal(all.length, 2 + demo.tree.series.length);
    const pages: unknown[][] = [];
    for (let offset = 0; offset < all.length; offset += 3) {
      pages.push((await qido(`/series?limit=3&offset=${offset}`)).map((s) => first(s, '0020000E')));
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1],
    );
    assert.deepEqual(pages.flat(), all);
    assert.deepEqual(await qido(`/series?offset=${all.length}`), []);
  });

  test('finding: series-level QIDO-RS returns NumberOfSeriesRelatedInstances (00201209) unasked', async () => {
    const series = await qido('/series');
    const counts = new Map(
      series.map((s) => [`${first(s, '00100020')} ${first(s, '0008103E')}`, first(s, '00201209')]),
    );
    assert.equal(counts.get('DEMO000 CT'), demo.ct.slices);
    assert.equal(counts.get('DEMO000 Tumour'), 1, 'the SEG is one instance');
    for (const s of demo.tree.series) assert.equal(counts.get(`${s.patientId} ${s.seriesDescription}`), s.files);
  });

  test('finding: includefield=00280010 at series level adds Rows, absent otherwise', async () => {
    const plain = await qido('/series?PatientID=DEMO000&Modality=CT');
    assert.equal(plain[0]?.['00280010'], undefined);
    const [ct] = await qido('/series?PatientID=DEMO000&Modality=CT&includefield=00280010');
    const rows = dicomParser.parseDicom(await readFile(ctFiles()[0]!), { untilTag: 'x7fe00010' }).uint16('x00280010');
    assert.deepEqual(ct?.['00280010'], { vr: 'US', Value: [rows] });
    const every = await qido('/series?includefield=00280010');
    assert.ok(every.every((s) => typeof first(s, '00280010') === 'number'));
  });

  test('finding: StudyDate range matching works, open-ended ranges too', async () => {
    const dates = (await qido('/studies')).map((s) => String(first(s, '00080020')));
    const within = async (range: string): Promise<string[]> =>
      (await qido(`/studies?StudyDate=${range}`)).map((s) => String(first(s, '00080020'))).sort();
    const expect = (from: string, to: string): string[] => dates.filter((d) => d >= from && d <= to).sort();
    assert.deepEqual(await within('20200101-20301231'), [...dates].sort());
    assert.deepEqual(await within('20240101-20240131'), expect('20240101', '20240131'));
    assert.deepEqual(await within('20240201-'), expect('20240201', '99999999'));
    assert.deepEqual(await within('-20240131'), expect('00000000', '20240131'));
    assert.ok(expect('20240101', '20240131').length > 0 && expect('20240201', '99999999').length > 0);
    assert.deepEqual(await within('19900101-19901231'), []);
  });

  test('finding: STOW-RS of a stored instance answers 200, references it, stores nothing new', async () => {
    const before = await orthanc.instanceCount();
    const file = await readFile(ctFiles()[0]!);
    const { status, answer } = await stow(stowBody([file], 'wbplay-stow-1'), 'wbplay-stow-1');
    assert.equal(status, 200);
    assert.deepEqual(referenced(answer), [sopInstanceUid(file)]);
    assert.deepEqual(answer['00081198'], { vr: 'SQ' }, 'an empty FailedSOPSequence');
    assert.equal(await orthanc.instanceCount(), before);
  });

  test('finding: STOW-RS with an unreadable part answers 400, stores the rest, and lists no failure', async () => {
    const fresh = await stowFresh();
    const { status, answer } = await stow(
      stowBody([fresh.file, Buffer.from('not DICOM')], 'wbplay-stow-2'),
      'wbplay-stow-2',
    );
    assert.equal(status, 400);
    assert.deepEqual(referenced(answer), [sopInstanceUid(fresh.file)]);
    assert.deepEqual(answer['00081198'], { vr: 'SQ' }, 'the failed part is not listed');
    assert.equal(await orthanc.instanceCount(), fresh.count + 1);
  });

  test('finding: STOW-RS ignores a last part with no delimiter after it, and still answers 200', async () => {
    const fresh = await stowFresh();
    // A whole, valid file with its CRLF, but the body ends before the closing delimiter.
    const { status, answer } = await stow(stowBody([fresh.file], 'wbplay-stow-3', false), 'wbplay-stow-3');
    assert.equal(status, 200);
    assert.deepEqual(referenced(answer), [], 'only ReferencedSOPSequence tells what was stored');
    assert.equal(await orthanc.instanceCount(), fresh.count);
  });

  test('finding: RetrieveURLs follow the Host the client asked for', async () => {
    const res = await fetch(`${orthanc.dicomweb}/studies?PatientID=DEMO000`, { headers: { authorization } });
    const [study] = (await res.json()) as DicomJson[];
    assert.equal(first(study!, '00081190'), `${orthanc.dicomweb}/studies/${first(study!, '0020000D')}`);
    const raw = await new Promise<string>((resolve, reject) => {
      const req = request(`${orthanc.dicomweb}/studies?PatientID=DEMO000`, {
        headers: { authorization, host: 'archive.example:8443' },
        agent: false,
      });
      req.on('response', (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve(Buffer.concat(chunks).toString()));
      });
      req.on('error', reject);
      req.end();
    });
    const [proxied] = JSON.parse(raw) as DicomJson[];
    assert.match(String(first(proxied!, '00081190')), /^http:\/\/archive\.example:8443\/dicom-web\/studies\//);
  });

  test('the fault proxy in front of it: auth passes, a WADO-RS part is swapped, a cut answer ends well-formed', async () => {
    const proxy = await startFaultProxy(orthanc.dicomweb);
    try {
      const [series] = await qido('/series?PatientID=DEMO000&Modality=CT');
      const path = `/studies/${first(series!, '0020000D')}/series/${first(series!, '0020000E')}`;
      const listed = await fetch(`${proxy.url}/studies`, { headers: { authorization } });
      assert.equal(((await listed.json()) as unknown[]).length, 1 + demo.tree.studies);

      proxy.fault({ kind: 'replace-part', index: 2, body: Buffer.from('not DICOM'), path: /\/series\/[\d.]+$/ });
      const swapped = await fetch(`${proxy.url}${path}`, { headers: { authorization } });
      const boundary = MULTIPART_DICOM.exec(swapped.headers.get('content-type') ?? '')?.[1];
      assert.ok(boundary);
      const got = parts(Buffer.from(await swapped.arrayBuffer()), boundary);
      // The STOW-RS findings above may have taken a slice out; the archive's own count is the truth.
      assert.equal(got.length, first(series!, '00201209'));
      assert.equal(got[2]!.body.toString(), 'not DICOM');
      assert.match(got[2]!.headers, /^Content-Length: 9$/m);
      assert.equal(got[3]!.body.subarray(128, 132).toString(), 'DICM');

      // Orthanc ends this answer by closing; through the proxy it arrives chunked, cut but complete-looking.
      proxy.fault({ kind: 'truncate-after', bytes: 50_000, path: /\/series\/[\d.]+$/ });
      const cut = await fetch(`${proxy.url}${path}`, { headers: { authorization } });
      const body = Buffer.from(await cut.arrayBuffer());
      assert.equal(body.length, 50_000);
      assert.ok(!body.includes(`--${MULTIPART_DICOM.exec(cut.headers.get('content-type') ?? '')?.[1]}--`));
      assert.deepEqual(
        proxy.requests.map((r) => r.status),
        [200, 200, 200],
      );
    } finally {
      await proxy.close();
    }
  });

  /** A CT file not yet in the archive (a CT slice pushed and deleted), and the count without it. */
  async function stowFresh(): Promise<{ file: Buffer; count: number }> {
    const file = await readFile(ctFiles().at(-1)!);
    const uid = sopInstanceUid(file);
    const found = (await (
      await fetch(`${orthanc.root}/tools/lookup`, { method: 'POST', body: uid, headers: { authorization } })
    ).json()) as { ID: string; Type: string }[];
    for (const item of found.filter((f) => f.Type === 'Instance'))
      assert.equal(
        (await fetch(`${orthanc.root}/instances/${item.ID}`, { method: 'DELETE', headers: { authorization } })).status,
        200,
      );
    return { file, count: await orthanc.instanceCount() };
  }
});

describe(EXAMPLE, { skip }, () => {
  let orthanc: Orthanc | undefined;
  after(async () => orthanc?.stop());

  test('says what it promises: loopback, basic auth, DICOMweb, port 8042, storage beside it', async () => {
    const config = await readOrthancConfig(EXAMPLE);
    assert.equal(config.HttpPort, 8042);
    assert.equal(config.RemoteAccessAllowed, false);
    assert.equal(config.AuthenticationEnabled, true);
    assert.equal(config.DicomServerEnabled, false);
    assert.ok(!isAbsolute(String(config.StorageDirectory)) && !isAbsolute(String(config.IndexDirectory)));
    assert.deepEqual(config.DicomWeb, { Enable: true, Root: '/dicom-web/', EnableWado: false, Ssl: false });
    for (const plugin of config.Plugins as string[]) await access(plugin);
  });

  test('starts as it is, with only the port and storage moved, and serves DICOMweb to its user', async () => {
    const config = await readOrthancConfig(EXAMPLE);
    const [user, password] = Object.entries(config.RegisteredUsers as Record<string, string>)[0]!;
    orthanc = await startOrthanc({ user, password, config });
    const authorization = basic(user, password);
    const plugins = (await (await fetch(`${orthanc.root}/plugins`, { headers: { authorization } })).json()) as string[];
    assert.ok(plugins.includes('dicom-web') && plugins.includes('gdcm'), plugins.join(', '));

    const dicomweb = `${orthanc.root}${(config.DicomWeb as { Root: string }).Root}`;
    assert.equal((await fetch(`${dicomweb}studies`)).status, 401);
    const dir = await mkdtemp(join(tmpdir(), 'wbplay-orthanc-example-'));
    try {
      const demo = await writeDemoDicom(dir);
      const file = await readFile(demo.files[0]!);
      const boundary = 'wbplay-example';
      const stored = await fetch(`${dicomweb}studies`, {
        method: 'POST',
        body: stowBody([file], boundary),
        headers: { authorization, 'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}` },
      });
      assert.equal(stored.status, 200);
      await stored.arrayBuffer();
      const found = await fetch(`${dicomweb}instances?SOPInstanceUID=${sopInstanceUid(file)}`, {
        headers: { authorization },
      });
      assert.equal(((await found.json()) as unknown[]).length, 1);
      assert.equal(await orthanc.instanceCount(), 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
