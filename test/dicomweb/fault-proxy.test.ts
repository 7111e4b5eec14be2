// The fault proxy against a small local upstream: every fault is observed by a client as a
// DICOMweb client would meet it (node:http to see bytes and socket errors, fetch as undici
// reports them), and what no fault touches passes through byte for byte, both ways.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';

const BODY = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const BOUNDARY = 'b0undary-42';
const PARTS = [
  // The boundary's bytes inside a part, not after a CRLF, are content, not a delimiter.
  Buffer.from(`first part, quoting --${BOUNDARY} inline`),
  randomBytes(300),
  Buffer.from('third part'),
];

function multipart(parts: readonly Buffer[]): Buffer {
  return Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Type: application/dicom\r\nContent-Length: ${p.length}\r\nMIME-Version: 1.0\r\n\r\n`,
      ),
      p,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ]);
}

let upstream: Server;
let proxy: FaultProxy;
const hits = new Map<string, number>();

before(async () => {
  upstream = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/base/fixed') res.writeHead(200, { 'content-length': BODY.length }).end(BODY);
    else if (path === '/base/chunked') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < BODY.length; i += 100) res.write(BODY.subarray(i, i + 100));
      res.end();
    } else if (path === '/base/close-delimited') {
      // As Orthanc sends WADO-RS: HTTP/1.1 with neither a length nor chunks, ended by closing.
      req.socket.end(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n'), BODY]));
    } else if (path === '/base/multipart') {
      const body = multipart(PARTS);
      res.writeHead(200, {
        'content-type': `multipart/related; type="application/dicom"; boundary=${BOUNDARY}`,
        'content-length': body.length,
      });
      res.end(body);
    } else if (path === '/base/echo') {
      const hash = createHash('sha256');
      let length = 0;
      req.on('data', (c: Buffer) => {
        hash.update(c);
        length += c.length;
      });
      req.on('end', () => {
        const seen = { authorization: req.headers.authorization, host: req.headers.host, length };
        res
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ ...seen, sha: hash.digest('hex') }));
      });
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  proxy = await startFaultProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/base/`);
});

after(async () => {
  await proxy.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

interface Seen {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The socket error the answer ended with, if it did not end well. */
  error?: string;
}

/** A GET on a fresh connection that keeps whatever body arrived before an error. */
function rawGet(path: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    // A reset mid-body surfaces on the request or on the response, depending on when it lands.
    let ended: ((error: string) => void) | undefined;
    const req = get(`${proxy.url}${path}`, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let settled = false;
      const done = (error?: string): void => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), error });
      };
      ended = done;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done());
      res.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    });
    req.on('error', (err: NodeJS.ErrnoException) => (ended ? ended(err.code ?? err.message) : reject(err)));
  });
}

/** How the connection ended, at the TCP level: a clean close (FIN) or a socket error such as a reset. */
function tcpEnding(path: string): Promise<{ received: Buffer; ending: string }> {
  const { hostname, port, pathname } = new URL(`${proxy.url}${path}`);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const done = (ending: string): void => resolve({ received: Buffer.concat(chunks), ending });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => done('FIN'));
    socket.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  });
}

test('passes answers and requests through untouched, streamed both ways', async () => {
  assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/base$/);
  for (const path of ['/fixed', '/chunked', '/close-delimited']) {
    const seen = await rawGet(path);
    assert.equal(seen.status, 200, path);
    assert.equal(seen.error, undefined, path);
    assert.deepEqual(seen.body, BODY, path);
  }
  const upload = randomBytes(1 << 20);
  const res = await fetch(`${proxy.url}/echo`, {
    method: 'POST',
    headers: { authorization: 'Basic dTpw' },
    // A stream, so the request goes chunked and the proxy must stream it on.
    body: new Blob([upload]).stream(),
    duplex: 'half',
  } as RequestInit);
  assert.equal(res.status, 201);
  const echoed = (await res.json()) as { authorization: string; host: string; length: number; sha: string };
  assert.equal(echoed.authorization, 'Basic dTpw');
  assert.equal(echoed.host, new URL(proxy.url).host, 'the client Host goes on');
  assert.equal(echoed.length, upload.length);
  assert.equal(echoed.sha, createHash('sha256').update(upload).digest('hex'));
  assert.deepEqual(proxy.requests.slice(-2), [
    { method: 'GET', path: '/base/close-delimited', status: 200 },
    { method: 'POST', path: '/base/echo', status: 201 },
  ]);
});

test('status faults answer for the upstream, as many times as asked, only for their method and path', async () => {
  const before = hits.get('/base/fixed') ?? 0;
  proxy.fault({ kind: 'status', status: 503, retryAfter: 7, method: 'GET', path: /\/fixed$/, times: 2 });
  proxy.fault({ kind: 'status', status: 429, method: 'post', path: /\/echo$/ });
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${proxy.url}/fixed`);
    statuses.push(res.status);
    assert.equal(res.headers.get('retry-after'), i < 2 ? '7' : null);
    await res.arrayBuffer();
  }
  assert.deepEqual(statuses, [503, 503, 200]);
  assert.equal(hits.get('/base/fixed'), before + 1, 'the faulted requests never reached the upstream');

  const echoHits = hits.get('/base/echo') ?? 0;
  const get = await fetch(`${proxy.url}/echo`);
  await get.arrayBuffer();
  assert.equal(get.status, 201, 'a POST rule leaves a GET alone');
  const post = await fetch(`${proxy.url}/echo`, { method: 'POST', body: 'x' });
  assert.equal(post.status, 429);
  assert.equal(post.headers.get('retry-after'), null);
  await post.arrayBuffer();
  assert.equal(hits.get('/base/echo'), echoHits + 1);
  assert.deepEqual(
    proxy.requests.slice(-5).map((r) => r.status),
    [503, 503, 200, 201, 429],
  );
});

test('reset-after: the headers and N body bytes arrive, then the connection is reset', async () => {
  for (const path of ['/fixed', '/chunked', '/close-delimited']) {
    proxy.fault({ kind: 'reset-after', bytes: 100, path: new RegExp(`${path}$`) });
    const seen = await rawGet(path);
    assert.equal(seen.status, 200, path);
    assert.equal(seen.error, 'ECONNRESET', path);
    assert.deepEqual(seen.body, BODY.subarray(0, 100), path);
  }
  proxy.fault({ kind: 'reset-after', bytes: 0, path: /\/fixed$/ });
  const empty = await rawGet('/fixed');
  assert.equal(empty.headers['content-length'], String(BODY.length));
  assert.equal(empty.error, 'ECONNRESET');
  assert.equal(empty.body.length, 0);

  proxy.fault({ kind: 'reset-after', bytes: 10, path: /\/fixed$/ });
  const res = await fetch(`${proxy.url}/fixed`);
  assert.equal(res.status, 200);
  await assert.rejects(res.arrayBuffer(), 'fetch sees the reset as a failed body');
  const again = await fetch(`${proxy.url}/fixed`);
  assert.deepEqual(Buffer.from(await again.arrayBuffer()), BODY, 'the fault was used up');
});

test('truncate-after against a Content-Length: N bytes, then the connection closes short of it', async () => {
  proxy.fault({ kind: 'truncate-after', bytes: 100, path: /\/fixed$/ });
  const seen = await rawGet('/fixed');
  assert.equal(seen.headers['content-length'], String(BODY.length));
  assert.deepEqual(seen.body, BODY.subarray(0, 100));
  assert.equal(seen.error, 'ECONNRESET', 'node:http reports a body short of its length as aborted');
  proxy.fault({ kind: 'truncate-after', bytes: 100, path: /\/fixed$/ });
  const tcp = await tcpEnding('/fixed');
  assert.equal(tcp.ending, 'FIN', 'a clean close, not a reset');
  assert.match(tcp.received.toString('latin1'), /\r\nconnection: close\r\n/i);
  assert.ok(tcp.received.subarray(tcp.received.indexOf('\r\n\r\n') + 4).equals(BODY.subarray(0, 100)));

  proxy.fault({ kind: 'truncate-after', bytes: 100, path: /\/fixed$/ });
  const res = await fetch(`${proxy.url}/fixed`);
  await assert.rejects(res.arrayBuffer());
});

test('truncate-after against chunked and close-delimited answers: a short but well-formed body', async () => {
  for (const path of ['/chunked', '/close-delimited']) {
    proxy.fault({ kind: 'truncate-after', bytes: 150, path: new RegExp(`${path}$`) });
    const seen = await rawGet(path);
    assert.equal(seen.error, undefined, path);
    assert.equal(seen.headers['transfer-encoding'], 'chunked', path);
    assert.deepEqual(seen.body, BODY.subarray(0, 150), path);

    proxy.fault({ kind: 'truncate-after', bytes: 150, path: new RegExp(`${path}$`) });
    const res = await fetch(`${proxy.url}${path}`);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), BODY.subarray(0, 150), `fetch takes it whole: ${path}`);
  }
});

test('replace-part swaps one part of a multipart answer and keeps its framing valid', async () => {
  const junk = Buffer.from('not DICOM at all');
  proxy.fault({ kind: 'replace-part', index: 1, body: junk, path: /\/multipart$/ });
  const res = await fetch(`${proxy.url}/multipart`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), `multipart/related; type="application/dicom"; boundary=${BOUNDARY}`);
  const body = Buffer.from(await res.arrayBuffer());
  const expected = multipart([PARTS[0]!, junk, PARTS[2]!]);
  assert.deepEqual(body, expected, 'the other parts unchanged, the part Content-Length matching');
  assert.equal(res.headers.get('content-length'), String(expected.length));

  for (const index of [0, 2]) {
    proxy.fault({ kind: 'replace-part', index, body: junk, path: /\/multipart$/ });
    const parts = [...PARTS];
    parts[index] = junk;
    const swapped = await fetch(`${proxy.url}/multipart`);
    assert.deepEqual(Buffer.from(await swapped.arrayBuffer()), multipart(parts), `part ${index}`);
  }

  proxy.fault({ kind: 'replace-part', index: 3, body: junk, path: /\/multipart$/ });
  const missing = await fetch(`${proxy.url}/multipart`);
  assert.equal(missing.status, 502);
  assert.match(await missing.text(), /the answer has 3 parts/);
  proxy.fault({ kind: 'replace-part', index: 0, body: junk, path: /\/fixed$/ });
  const plain = await fetch(`${proxy.url}/fixed`);
  assert.equal(plain.status, 502, 'a fault that cannot apply says so rather than passing silently');
  await plain.arrayBuffer();
});
