// Hostile and broken answers: a scripted server gives each kind, and the client turns every one
// into a typed error with a stable code, naming the call, within a bound set by its timeout.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { connect, WorkbenchApiError, WorkbenchNetworkError, WorkbenchProtocolError, type WorkbenchClient } from '../../src/client/index.js';
import { MAX_DATA_BYTES, MAX_IMAGE_BYTES, MAX_JSON_BYTES } from '../../src/client/limits.js';
import { ScriptedServer, type Action } from '../helpers/scripted-server.js';

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
  assert.ok(elapsed < bound(timeoutMs), `ended after ${Math.round(elapsed)} ms, beyond the bound of a ${timeoutMs} ms timeout`);
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

test('an answer cut off before its announced length is CONNECTION_RESET, a retryable network error', async () => {
  srv.on('GET', '/api/v1/rendering/selected-time', raw('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"timepoint_ms":', (s) => s.end()));
  const err = await failure(() => wb.rendering.time());
  assert.ok(err instanceof WorkbenchNetworkError && err.code === 'CONNECTION_RESET', String(err));
  assert.match(err.message, /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/rendering\/selected-time/);
});

test('an endless JSON body is cut off at the JSON limit with RESPONSE_TOO_LARGE: memory stays bounded', async () => {
  const sent = { bytes: 0 };
  srv.on('GET', '/api/v1/datastorage/nodes', raw('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' + chunk('{"data":['), endless(chunk('{"uid":"n","name":"x"},'.repeat(4096)), sent)));
  // A timeout long enough for the limit to be reached first, on any machine.
  const timeoutMs = 30_000;
  const err = await failure(() => wb.nodes.list({}, { timeoutMs }), timeoutMs);
  protocolError(err, 'RESPONSE_TOO_LARGE', /^GET \/api\/v1\/datastorage\/nodes: the answer goes on past 64 MiB, the most the client keeps for a JSON answer/);
  // The client closed the connection at its limit: the server got out the limit plus what fits in socket buffers.
  await sleep(200);
  assert.ok(sent.bytes < MAX_JSON_BYTES + 16 * 1024 * 1024, `the server wrote ${sent.bytes} bytes before the client gave up`);
  const settled = sent.bytes;
  await sleep(200);
  assert.equal(sent.bytes, settled, 'nothing more is written once the client has gone');
});

test('an endless error body keeps its status: only the start is read', async () => {
  const sent = { bytes: 0 };
  srv.on('POST', '/api/v1/rendering/update', raw('HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n', endless(chunk('<p>busy</p>'.repeat(1000)), sent)));
  const err = await failure(() => wb.rendering.update());
  assert.ok(err instanceof WorkbenchApiError, String(err));
  assert.deepEqual([err.status, err.code], [503, 'HTTP_503']);
  assert.ok(err.message.startsWith('<p>busy</p>'));
});

test('an endless body that trickles is abandoned at the timeout, which covers the body as well as the headers', async () => {
  srv.on('GET', '/api/v1/rendering/screenshot', raw('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n', trickle(chunk('x'.repeat(64)), 20)));
  const err = await failure(() => wb.rendering.screenshot());
  assert.ok(err instanceof WorkbenchNetworkError && err.code === 'TIMEOUT', String(err));
  assert.match(err.message, /after 300 ms/);
});

test('an answer announced larger than its limit is refused before it is read: screenshots, data, JSON', async () => {
  const announce = (type: string, bytes: number): Action => raw(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nContent-Length: ${bytes}\r\n\r\n`, trickle('x', 50));
  srv.on('GET', '/api/v1/rendering/screenshot', announce('image/png', MAX_IMAGE_BYTES + 1));
  protocolError(await failure(() => wb.rendering.screenshot()), 'RESPONSE_TOO_LARGE', /^GET \/api\/v1\/rendering\/screenshot: the answer announces 335544321 bytes, more than the 320 MiB the client keeps for a screenshot; it was not read$/);
  srv.on('GET', '/api/v1/datastorage/nodes/n1/data', announce('application/octet-stream', MAX_DATA_BYTES + 1));
  protocolError(await failure(() => wb.nodes.getData('n1')), 'RESPONSE_TOO_LARGE', /more than the 1024 MiB the client keeps for a node's data \(use transfer 'file-reference' for larger data\)/);
  srv.on('GET', '/api/v1/info', announce('application/json', MAX_JSON_BYTES + 1));
  protocolError(await failure(() => wb.info()), 'RESPONSE_TOO_LARGE', /more than the 64 MiB the client keeps for a JSON answer/);
});

test('headers that never end: trickled, they time out; flooded, they are MALFORMED_ANSWER at once', async () => {
  srv.on('GET', '/api/v1/health', raw('HTTP/1.1 200 OK\r\n', trickle('X-Padding: more\r\n', 20)));
  const slow = await failure(() => wb.health());
  assert.ok(slow instanceof WorkbenchNetworkError && slow.code === 'TIMEOUT' && /after 300 ms/.test(slow.message), String(slow));
  srv.on('GET', '/api/v1/health', raw('HTTP/1.1 200 OK\r\n', endless(`X-Padding: ${'p'.repeat(1000)}\r\n`, { bytes: 0 })));
  const flood = await failure(() => wb.health());
  assert.ok(flood instanceof WorkbenchNetworkError && flood.code === 'MALFORMED_ANSWER', String(flood));
  assert.match(flood.message, /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/health: MALFORMED_ANSWER: the answer is not readable HTTP/);
});

test('an answer that is not HTTP at all is MALFORMED_ANSWER, not retried as a network failure', async () => {
  srv.on('GET', '/api/v1/info', raw('SSH-2.0-OpenSSH_9.6\r\n', (s) => s.end()));
  const err = await failure(() => wb.info());
  assert.ok(err instanceof WorkbenchNetworkError && err.code === 'MALFORMED_ANSWER', String(err));
  srv.on('GET', '/api/v1/info', raw('HTTP/1.1 2000 Fine\r\n\r\n', (s) => s.end()));
  const status = await failure(() => wb.info());
  assert.ok(status instanceof WorkbenchNetworkError && status.code === 'MALFORMED_ANSWER', String(status));
});
