import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { withWorkbench, type TestWorkbench } from '../../helpers/workbench.js';
import { imageBytes } from './volumes.js';

interface RawAnswer {
  status: number;
  /** Header names exactly as they came over the wire, in order. */
  names: string[];
  headers: Map<string, string>;
}

/**
 * One request over a plain socket, the answer's header block read byte for byte: fetch and
 * undici lower-case names, so only the raw bytes show how the server spelled them.
 */
function raw(
  wb: TestWorkbench,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body: Uint8Array = new Uint8Array(0),
): Promise<RawAnswer> {
  const url = new URL(wb.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.destroy();
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const names = lines.map((l) => l.slice(0, l.indexOf(':')));
      resolve({
        status: Number(statusLine!.split(' ')[1]),
        names,
        headers: new Map(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()])),
      });
    });
    socket.on('error', reject);
    const head = [
      `${method} ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      'Connection: close',
      `Content-Length: ${body.length}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    if (body.length > 0) socket.write(body);
  });
}

const CORS = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Methods', 'Access-Control-Allow-Headers'];

/** Every name in canonical form, the listed ones present exactly so spelled, none in lower case. */
function assertNames(answer: RawAnswer, status: number, expected: string[], what: string): void {
  assert.equal(answer.status, status, what);
  for (const name of expected)
    assert.ok(answer.names.includes(name), `${what}: '${name}' in ${answer.names.join(', ')}`);
  for (const name of answer.names)
    assert.match(
      name,
      /^(WWW|[A-Z][a-z]*)(-(MITK|[A-Z][a-z]*))*$/,
      `${what}: '${name}' is not in the real server's spelling`,
    );
}

test('header names in the real server spelling: JSON, errors, bare 404 and 413, preflight, screenshots, data, 201 with Location', async () => {
  await withWorkbench({ maxPayloadBytes: 64 }, async (wb) => {
    assertNames(await raw(wb, 'GET', '/api/v1/info'), 200, ['Content-Type', 'Content-Length', ...CORS], 'JSON');
    assertNames(
      await raw(wb, 'GET', '/api/v1/datastorage/nodes/ghost'),
      404,
      ['Content-Type', 'Content-Length', ...CORS],
      'a problem answer',
    );
    const bare = await raw(wb, 'GET', '/api/v1/no/such/route');
    assertNames(bare, 404, ['Content-Length', ...CORS], 'bare 404');
    assert.equal(bare.headers.get('Content-Length'), '0');
    assertNames(
      await raw(
        wb,
        'PUT',
        '/api/v1/datastorage/nodes/x/data',
        { 'Content-Type': 'application/octet-stream' },
        new Uint8Array(100),
      ),
      413,
      ['Content-Length', 'Connection'],
      'bare 413',
    );
    assertNames(
      await raw(wb, 'OPTIONS', '/api/v1/datastorage/nodes', {
        Origin: 'http://localhost',
        'Access-Control-Request-Method': 'POST',
      }),
      204,
      CORS,
      'CORS preflight',
    );
    const created = await raw(
      wb,
      'POST',
      '/api/v1/datastorage/nodes',
      { 'Content-Type': 'application/json' },
      new TextEncoder().encode('{"name":"n"}'),
    );
    assertNames(created, 201, ['Content-Type', 'Location'], '201');
    assert.match(created.headers.get('Location')!, /^\/api\/v1\/datastorage\/nodes\/node_\d+$/);
    assertNames(
      await raw(wb, 'GET', '/api/v1/rendering/editors/stdmulti/windows/axial/screenshot?width=8&height=8'),
      200,
      ['Content-Type', 'Content-Length'],
      'screenshot',
    );
  });
  await withWorkbench({}, async (wb) => {
    const uid = (
      await wb.call('POST', '/datastorage/nodes?name=img', {
        body: imageBytes(),
        headers: { 'content-type': 'application/octet-stream', 'x-mitk-data-format': 'nrrd' },
      })
    ).json.data.uid;
    const data = await raw(wb, 'GET', `/api/v1/datastorage/nodes/${uid}/data`, { 'X-MITK-Transfer-Mode': 'direct' });
    assertNames(data, 200, ['Content-Type', 'Content-Disposition', 'Content-Length'], 'data download');
    assert.equal(data.headers.get('Content-Type'), 'application/octet-stream');
  });
});

test('401 with WWW-Authenticate and 429 with Retry-After, spelled as the real server does', async () => {
  await withWorkbench({ token: 'secret' }, async (wb) => {
    const denied = await raw(wb, 'GET', '/api/v1/datastorage/nodes');
    assertNames(denied, 401, ['WWW-Authenticate', 'Content-Type', ...CORS], '401');
    assert.equal(denied.headers.get('WWW-Authenticate'), 'Bearer');
  });
  await withWorkbench({ rateLimitPerMinute: 1 }, async (wb) => {
    assert.equal((await raw(wb, 'GET', '/api/v1/datastorage/nodes')).status, 200);
    const limited = await raw(wb, 'GET', '/api/v1/datastorage/nodes');
    assertNames(limited, 429, ['Retry-After', 'Content-Type'], '429');
    assert.match(limited.headers.get('Retry-After')!, /^\d+$/);
  });
});
