// Hostile and broken answers: a scripted server gives each kind, and the client turns every one
// into a typed error with a stable code, naming the call, within a bound set by its timeout.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { deflateSync } from 'node:zlib';
import { after, before, beforeEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import {
  connect,
  WorkbenchApiError,
  WorkbenchNetworkError,
  WorkbenchProtocolError,
  type WorkbenchClient,
} from '../../src/client/index.js';
import { MAX_DATA_BYTES, MAX_IMAGE_BYTES, MAX_JSON_BYTES, MAX_LIST_PAGES } from '../../src/client/limits.js';
import { makeChunk, PNG_SIGNATURE } from '../../src/image/png-chunks.js';
import { captureBytes } from '../helpers/captures.js';
import { envelope, ScriptedServer, type Action } from '../helpers/scripted-server.js';

const TOKEN = 'hostile-answers-token-0b5e';
/** The configured per-request timeout of the client under test. */
const TIMEOUT_MS = 300;
/**
 * How long after its timeout a call may still take to fail: the deadline fires at the timeout,
 * then the error is mapped and the socket closed. Generous, so a loaded machine does not fail
 * the test; what it catches is a call that waits for the answer to end instead.
 */
const bound = (timeoutMs: number): number => 2 * timeoutMs + 2_000;

let srv: ScriptedServer;
let wb: WorkbenchClient;
before(async () => {
  srv = await ScriptedServer.start();
  wb = connect({ url: srv.url, token: TOKEN, timeoutMs: TIMEOUT_MS });
});
after(async () => {
  await wb.close();
  await srv.close();
});
beforeEach(() => srv.reset());

/** The error a call ends with, checked to arrive within the bound of `timeoutMs` and to keep the token out. */
async function failure(call: () => Promise<unknown>, timeoutMs = TIMEOUT_MS): Promise<Error> {
  const started = performance.now();
  const err = await call().then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  const elapsed = performance.now() - started;
  assert.ok(
    elapsed < bound(timeoutMs),
    `ended after ${Math.round(elapsed)} ms, beyond the bound of a ${timeoutMs} ms timeout`,
  );
  assert.ok(err instanceof Error);
  assert.ok(!inspect(err, { depth: 5 }).includes(TOKEN), 'the token stays out of errors');
  return err;
}

function protocolError(err: Error, code: string, ...mentions: RegExp[]): void {
  assert.ok(err instanceof WorkbenchProtocolError, `${err.name}: ${err.message}`);
  assert.equal(err.code, code, err.message);
  for (const m of mentions) assert.match(err.message, m);
}

/** Raw answer bytes on the connection, then whatever `more` keeps doing with it. */
function raw(head: string, more?: (socket: Socket) => void): Action {
  return {
    socket: (socket) => {
      socket.on('error', () => undefined);
      socket.write(head);
      more?.(socket);
    },
  };
}

/** Writes `piece` for as long as the connection is open, as fast as the client takes it; counts what went out. */
function endless(piece: string | Buffer, sent: { bytes: number }): (socket: Socket) => void {
  return (socket) => {
    const pump = (): void => {
      while (!socket.destroyed && socket.writable) {
        sent.bytes += piece.length;
        if (!socket.write(piece)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  };
}

/** Writes `piece` every `everyMs` until the connection closes. */
function trickle(piece: string, everyMs: number): (socket: Socket) => void {
  return (socket) => {
    const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(piece)), everyMs);
    socket.once('close', () => clearInterval(timer));
  };
}

const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

test('truncated JSON (a complete answer whose JSON ends early) is UNEXPECTED_RESPONSE naming the call', async () => {
  srv.on('GET', '/api/v1/datastorage/nodes/n1', {
    headers: { 'content-type': 'application/json' },
    body: '{"data":{"uid":"n1","name":',
  });
  const err = await failure(() => wb.nodes.get('n1'));
  protocolError(err, 'UNEXPECTED_RESPONSE', /^GET \/api\/v1\/datastorage\/nodes\/n1: /, /not JSON/, /27 bytes/);
});

test('an answer cut off before its announced length is CONNECTION_RESET, a retryable network error', async () => {
  srv.on(
    'GET',
    '/api/v1/rendering/selected-time',
    raw('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"timepoint_ms":', (s) =>
      s.end(),
    ),
  );
  const err = await failure(() => wb.rendering.time());
  assert.ok(err instanceof WorkbenchNetworkError && err.code === 'CONNECTION_RESET', String(err));
  assert.match(err.message, /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/rendering\/selected-time/);
});

test('JSON of the wrong shape is UNEXPECTED_RESPONSE naming the field, never a TypeError later', async () => {
  const cases: Array<[string, string, unknown, () => Promise<unknown>, RegExp]> = [
    [
      'GET',
      '/api/v1/datastorage/nodes/n1',
      { data: { uid: 5 } },
      () => wb.nodes.get('n1'),
      /data\.uid should be a string, got 5/,
    ],
    ['GET', '/api/v1/datastorage/nodes/n1', { data: null }, () => wb.nodes.get('n1'), /data is not a JSON object/],
    [
      'GET',
      '/api/v1/datastorage/nodes',
      { data: { uid: 'n1' } },
      () => wb.nodes.list(),
      /a node listing should be an array/,
    ],
    [
      'GET',
      '/api/v1/datastorage/nodes',
      { data: [{ uid: 'a' }, 7], meta: { total_count: 2 } },
      () => wb.nodes.list(),
      /data\[\] is not a JSON object/,
    ],
    [
      'DELETE',
      '/api/v1/datastorage/nodes/n1',
      { data: { deleted_children: 'n2' } },
      () => wb.nodes.remove('n1'),
      /data\.deleted_children should be an array of strings/,
    ],
    [
      'GET',
      '/api/v1/rendering/selected-time',
      { timepoint_ms: '0', timestep: 0, bounds: {} },
      () => wb.rendering.time(),
      /timepoint_ms should be a number/,
    ],
    [
      'GET',
      '/api/v1/rendering/selected-position',
      { position: [1, 2, 3] },
      () => wb.rendering.selectedPosition(),
      /body\.bounds is not a JSON object/,
    ],
    [
      'GET',
      '/api/v1/rendering/editors/stdmulti/windows/axial/camera',
      { position: [0, 0, 1], focal_point: null, view_up: [0, 1, 0] },
      () => wb.stdmulti.axial.camera(),
      /focal_point should be an array of 3 numbers/,
    ],
    [
      'GET',
      '/api/v1/rendering/editors',
      { editors: [] },
      () => wb.editors.list(),
      /the editor list should be an array/,
    ],
    [
      'GET',
      '/api/v1/rendering/editors/mxn/layout',
      { version: 2, root: {} },
      () => wb.mxn.layout(),
      /not a layout document/,
    ],
    ['GET', '/api/v1/health', { data: { status: 3 } }, () => wb.health(), /data\.status should be a string/],
    ['GET', '/api/v1/info', [], () => wb.info(), /data is not a JSON object/],
  ];
  for (const [method, path, body, call, field] of cases) {
    srv.reset();
    srv.on(method, path, { json: body });
    const err = await failure(call);
    protocolError(err, 'UNEXPECTED_RESPONSE', new RegExp(`^${method} ${path.replaceAll('/', '\\/')}: `), field);
  }
});

test('a wrong content type is UNEXPECTED_RESPONSE naming it: an HTML page for JSON, JSON for a screenshot, a page for data', async () => {
  srv.on('GET', '/api/v1/health', {
    headers: { 'content-type': 'text/html' },
    body: '<html><body>Proxy login</body></html>',
  });
  protocolError(
    await failure(() => wb.health()),
    'UNEXPECTED_RESPONSE',
    /content-type text\/html where JSON was expected/,
  );
  // Refused even when the body happens to be JSON: it is not the workbench speaking.
  srv.on('GET', '/api/v1/health', { headers: { 'content-type': 'text/plain' }, body: '{"data":{"status":"healthy"}}' });
  protocolError(await failure(() => wb.health()), 'UNEXPECTED_RESPONSE', /content-type text\/plain/);
  srv.on('GET', '/api/v1/rendering/screenshot', { json: { error: 'not an image' } });
  protocolError(
    await failure(() => wb.rendering.screenshot()),
    'UNEXPECTED_RESPONSE',
    /^GET \/api\/v1\/rendering\/screenshot: /,
    /content-type application\/json where a png image \(image\/png\) was expected/,
  );
  srv.on('GET', '/api/v1/rendering/screenshot', {
    headers: { 'content-type': 'image/png' },
    body: captureBytes('png'),
  });
  protocolError(
    await failure(() => wb.rendering.screenshot({ format: 'jpeg' })),
    'UNEXPECTED_RESPONSE',
    /content-type image\/png where a jpeg image \(image\/jpeg\)/,
  );
  srv.on('GET', '/api/v1/datastorage/nodes/n1/data', {
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: '<html>Gateway</html>',
  });
  protocolError(
    await failure(() => wb.nodes.getData('n1')),
    'UNEXPECTED_RESPONSE',
    /content-type text\/html; charset=utf-8 where the node's data/,
  );
});

test('an endless JSON body is cut off at the JSON limit with RESPONSE_TOO_LARGE: memory stays bounded', async () => {
  const sent = { bytes: 0 };
  srv.on(
    'GET',
    '/api/v1/datastorage/nodes',
    raw(
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' + chunk('{"data":['),
      endless(chunk('{"uid":"n","name":"x"},'.repeat(4096)), sent),
    ),
  );
  // A timeout long enough for the limit to be reached first, on any machine.
  const timeoutMs = 30_000;
  const err = await failure(() => wb.nodes.list({}, { timeoutMs }), timeoutMs);
  protocolError(
    err,
    'RESPONSE_TOO_LARGE',
    /^GET \/api\/v1\/datastorage\/nodes: the answer goes on past 64 MiB, the most the client keeps for a JSON answer/,
  );
  // The client closed the connection at its limit: the server got out the limit plus what fits in socket buffers.
  await sleep(200);
  assert.ok(
    sent.bytes < MAX_JSON_BYTES + 16 * 1024 * 1024,
    `the server wrote ${sent.bytes} bytes before the client gave up`,
  );
  const settled = sent.bytes;
  await sleep(200);
  assert.equal(sent.bytes, settled, 'nothing more is written once the client has gone');
});

test('an endless error body keeps its status: only the start is read', async () => {
  const sent = { bytes: 0 };
  srv.on(
    'POST',
    '/api/v1/rendering/update',
    raw(
      'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n',
      endless(chunk('<p>busy</p>'.repeat(1000)), sent),
    ),
  );
  const err = await failure(() => wb.rendering.update());
  assert.ok(err instanceof WorkbenchApiError, String(err));
  assert.deepEqual([err.status, err.code], [503, 'HTTP_503']);
  assert.ok(err.message.startsWith('<p>busy</p>'));
});

test('an endless body that trickles is abandoned at the timeout, which covers the body as well as the headers', async () => {
  srv.on(
    'GET',
    '/api/v1/rendering/screenshot',
    raw(
      'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n',
      trickle(chunk('x'.repeat(64)), 20),
    ),
  );
  const err = await failure(() => wb.rendering.screenshot());
  assert.ok(err instanceof WorkbenchNetworkError && err.code === 'TIMEOUT', String(err));
  assert.match(err.message, /after 300 ms/);
});

test('an answer announced larger than its limit is refused before it is read: screenshots, data, JSON', async () => {
  const announce = (type: string, bytes: number): Action =>
    raw(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nContent-Length: ${bytes}\r\n\r\n`, trickle('x', 50));
  srv.on('GET', '/api/v1/rendering/screenshot', announce('image/png', MAX_IMAGE_BYTES + 1));
  protocolError(
    await failure(() => wb.rendering.screenshot()),
    'RESPONSE_TOO_LARGE',
    /^GET \/api\/v1\/rendering\/screenshot: the answer announces 335544321 bytes, more than the 320 MiB the client keeps for a screenshot; it was not read$/,
  );
  srv.on('GET', '/api/v1/datastorage/nodes/n1/data', announce('application/octet-stream', MAX_DATA_BYTES + 1));
  protocolError(
    await failure(() => wb.nodes.getData('n1')),
    'RESPONSE_TOO_LARGE',
    /more than the 1024 MiB the client keeps for a node's data \(use transfer 'file-reference' for larger data\)/,
  );
  srv.on('GET', '/api/v1/info', announce('application/json', MAX_JSON_BYTES + 1));
  protocolError(
    await failure(() => wb.info()),
    'RESPONSE_TOO_LARGE',
    /more than the 64 MiB the client keeps for a JSON answer/,
  );
});

/** A PNG built by hand from raw scanlines (filter byte first on each), so damaged variants can be made. */
function png(
  width: number,
  height: number,
  colorType: number,
  scanlines: Uint8Array,
  opts: { interlace?: number; idat?: Uint8Array } = {},
): Buffer {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, colorType, 0, 0, opts.interlace ?? 0], 8);
  return Buffer.concat([
    PNG_SIGNATURE,
    makeChunk('IHDR', ihdr),
    makeChunk('IDAT', opts.idat ?? deflateSync(scanlines)),
    makeChunk('IEND', new Uint8Array(0)),
  ]);
}

/** `rows` rows of `width` RGB pixels, each row with filter type `filter`. */
function rgbRows(width: number, rows: number, filter = 0): Uint8Array {
  const out = new Uint8Array(rows * (1 + 3 * width)).map((_, i) => (i * 29) % 251);
  for (let r = 0; r < rows; r++) out[r * (1 + 3 * width)] = filter;
  return out;
}

test('a PNG that does not decode is UNEXPECTED_RESPONSE naming the call and the damage', async () => {
  const capture = captureBytes('png', 16, 16);
  const deflated = deflateSync(rgbRows(3, 2));
  const garbled = Uint8Array.from(deflated, (b, i) => (i > 2 && i < deflated.length - 4 ? b ^ 0x5a : b));
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['not a PNG', Buffer.from('<html>Gateway Timeout</html>'), /the PNG signature is missing/],
    [
      'cut in half',
      capture.subarray(0, Math.floor(capture.length / 2)),
      /runs past the end of the file \(truncated\?\)|ends inside a chunk header/,
    ],
    ['garbled image data', png(3, 2, 2, new Uint8Array(0), { idat: garbled }), /its image data cannot be inflated/],
    ['too few rows', png(3, 2, 2, rgbRows(3, 1)), /its image data ends after 10 of the 20 bytes 3x2 pixels need/],
    ['too many rows', png(3, 2, 2, rgbRows(3, 3)), /its image data is longer than 3x2 pixels need/],
    ['unknown row filter', png(3, 2, 2, rgbRows(3, 2, 7)), /row 0 has the unknown filter type 7/],
    [
      'no image data',
      Buffer.concat([
        PNG_SIGNATURE,
        makeChunk('IHDR', png(3, 2, 2, new Uint8Array(0)).subarray(16, 29)),
        makeChunk('IEND', new Uint8Array(0)),
      ]),
      /no image data/,
    ],
    ['an impossible header', png(3, 2, 5, rgbRows(3, 2)), /colour type 5 with bit depth 8 does not exist/],
    [
      'a decompression bomb',
      png(100_000, 100_000, 6, new Uint8Array(10)),
      /announces 100000x100000 pixels, more than any capture holds/,
    ],
  ];
  for (const [what, bytes, damage] of cases) {
    srv.on('GET', '/api/v1/rendering/editors/stdmulti/windows/axial/screenshot', {
      headers: { 'content-type': 'image/png' },
      body: bytes,
    });
    const err = await failure(() => wb.stdmulti.axial.screenshot());
    protocolError(
      err,
      'UNEXPECTED_RESPONSE',
      /^GET \/api\/v1\/rendering\/editors\/stdmulti\/windows\/axial\/screenshot: /,
      new RegExp(`\\(${bytes.length} bytes\\)$`),
    );
    assert.match(err.message, damage, what);
  }
  const jpeg = captureBytes('jpeg', 16, 16);
  for (const [bytes, damage] of [
    [jpeg.subarray(0, jpeg.length - 10), /end-of-image marker is missing \(truncated\?\)/],
    [capture, /is not a JPEG/],
  ] as const) {
    srv.on('GET', '/api/v1/rendering/screenshot', { headers: { 'content-type': 'image/jpeg' }, body: bytes });
    protocolError(await failure(() => wb.rendering.screenshot({ format: 'jpeg' })), 'UNEXPECTED_RESPONSE', damage);
  }
});

test('the image check accepts what decodes: a capture, RGBA, and an interlaced PNG', async () => {
  // Adam7 of a 5x5 grey image: passes of 1x1, 1x1, 2x1, 1x2, 3x1, 2x3 and 5x2 pixels (filter byte first on each row).
  const passRows = [
    [1, 1],
    [1, 1],
    [2, 1],
    [1, 2],
    [3, 1],
    [2, 3],
    [5, 2],
  ].flatMap(([w, rows]) => Array.from({ length: rows! }, () => [0, ...Array<number>(w!).fill(128)]));
  const interlaced = png(5, 5, 0, Uint8Array.from(passRows.flat()), { interlace: 1 });
  for (const bytes of [captureBytes('png', 7, 5), png(3, 2, 6, new Uint8Array(2 * (1 + 12)).fill(1)), interlaced]) {
    srv.on('GET', '/api/v1/rendering/screenshot', { headers: { 'content-type': 'image/png' }, body: bytes });
    assert.deepEqual((await wb.rendering.screenshot()).bytes, new Uint8Array(bytes));
  }
});

test('headers that never end: trickled, they time out; flooded, they are MALFORMED_ANSWER at once', async () => {
  srv.on('GET', '/api/v1/health', raw('HTTP/1.1 200 OK\r\n', trickle('X-Padding: more\r\n', 20)));
  const slow = await failure(() => wb.health());
  assert.ok(
    slow instanceof WorkbenchNetworkError && slow.code === 'TIMEOUT' && /after 300 ms/.test(slow.message),
    String(slow),
  );
  srv.on(
    'GET',
    '/api/v1/health',
    raw('HTTP/1.1 200 OK\r\n', endless(`X-Padding: ${'p'.repeat(1000)}\r\n`, { bytes: 0 })),
  );
  const flood = await failure(() => wb.health());
  assert.ok(flood instanceof WorkbenchNetworkError && flood.code === 'MALFORMED_ANSWER', String(flood));
  assert.match(
    flood.message,
    /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/health: MALFORMED_ANSWER: the answer is not readable HTTP/,
  );
});

test('an answer that is not HTTP at all is MALFORMED_ANSWER, not retried as a network failure', async () => {
  srv.on(
    'GET',
    '/api/v1/info',
    raw('SSH-2.0-OpenSSH_9.6\r\n', (s) => s.end()),
  );
  const err = await failure(() => wb.info());
  assert.ok(err instanceof WorkbenchNetworkError && err.code === 'MALFORMED_ANSWER', String(err));
  srv.on(
    'GET',
    '/api/v1/info',
    raw('HTTP/1.1 2000 Fine\r\n\r\n', (s) => s.end()),
  );
  const status = await failure(() => wb.info());
  assert.ok(status instanceof WorkbenchNetworkError && status.code === 'MALFORMED_ANSWER', String(status));
});

test('a listing whose total_count keeps ahead of its pages ends after the page limit with UNEXPECTED_RESPONSE', async () => {
  let served = 0;
  srv.on('GET', '/api/v1/datastorage/nodes', () => envelope([{ uid: `n${served++}` }], { total_count: 1e12 }));
  const err = await failure(() => wb.nodes.list(), 30_000);
  protocolError(
    err,
    'UNEXPECTED_RESPONSE',
    new RegExp(
      `the listing did not end after ${MAX_LIST_PAGES} pages \\(1000 nodes; total_count says 1000000000000\\)`,
    ),
  );
  assert.equal(served, MAX_LIST_PAGES);
});
