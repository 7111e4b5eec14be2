import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReferenceWorkbenchOptions } from './config.js';
import type { EventLog } from './event-log.js';
import type { HandledResponse } from './handler.js';
import type { SimRequest } from './http-types.js';
import { Problem, problemResponse } from './problem.js';
import { wireHeaders } from './wire-headers.js';
import { createWorkbench, type Workbench, type WorkbenchInternals } from './workbench.js';

export type { ReferenceWorkbenchOptions } from './config.js';

/** A running reference workbench. */
export interface ReferenceWorkbenchHandle {
  /** Server root, e.g. `http://127.0.0.1:43123`; the API is under `/api/v1`. */
  url: string;
  port: number;
  /** Every request so far (`events.entries`), also written to the `events` file if given. */
  events: EventLog;
  workbench: Workbench;
  /** Closes every connection (stalled ones too), removes temp directories, flushes the log. */
  stop(): Promise<void>;
}

/** Starts the reference workbench on `host:port` (127.0.0.1 and a free port by default). */
export async function startReferenceWorkbench(options: ReferenceWorkbenchOptions = {}, internals: WorkbenchInternals = {}): Promise<ReferenceWorkbenchHandle> {
  const workbench = await createWorkbench(options, internals);
  const server = createServer((req, res) => {
    // The handler answers every failure itself; this only guards the socket layer (a header
    // Node refuses, say), so that nothing can take the process down.
    serve(workbench, req, res).catch(() => {
      if (!res.headersSent) send(res, problemResponse(new Problem('INTERNAL_ERROR', 'An unexpected error occurred while answering the request'), ''));
      else req.socket.destroy();
    });
  });
  try {
    await listen(server, workbench.config.host, workbench.config.port);
  } catch (err) {
    await workbench.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const host = workbench.config.host.includes(':') ? `[${workbench.config.host}]` : workbench.config.host;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    events: workbench.events,
    workbench,
    stop: () =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await workbench.close();
      })()),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Adapts one node:http exchange to the pure handler and back. */
async function serve(workbench: Workbench, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const { body, tooLarge } = await readBody(req, workbench.config.maxPayloadBytes);
  const simReq: SimRequest = {
    method: req.method ?? 'GET',
    path: q < 0 ? url : url.slice(0, q),
    query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
    headers,
    body,
    clientIp: req.socket.remoteAddress ?? '',
  };
  const answer: HandledResponse = await workbench.handle(simReq, { bodyTooLarge: tooLarge });
  if (answer.abort === 'drop') {
    req.socket.destroy();
    return;
  }
  // A stall keeps the connection open without an answer until the client gives up or the server stops.
  if (answer.abort === 'stall') return;
  send(res, answer);
  if (tooLarge) res.once('finish', () => req.socket.destroySoon());
}

/**
 * The body, unless the declared or streamed size passes the limit: then reading stops early
 * and the request is answered 413 without the rest being read.
 */
function readBody(req: IncomingMessage, max: number): Promise<{ body: Uint8Array; tooLarge: boolean }> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max) return Promise.resolve({ body: new Uint8Array(0), tooLarge: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (tooLarge: boolean): void => {
      req.off('data', onData);
      // A plain Uint8Array of its own: the handler never sees Node's pooled Buffers, whose
      // `slice` shares memory and whose `buffer` is larger than the body.
      resolve(tooLarge ? { body: new Uint8Array(0), tooLarge } : { body: concat(chunks, size), tooLarge });
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        done(true);
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => done(false));
    // A client that goes away mid-body gets no answer anyway; what arrived is handled as sent.
    req.once('error', () => done(false));
  });
}

function concat(chunks: readonly Buffer[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Writes the answer; Node sends header names in the case given, so they leave in the real server's spelling. */
function send(res: ServerResponse, answer: HandledResponse): void {
  const body = answer.body === undefined ? undefined : typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.status !== 204) headers['content-length'] = String(body?.length ?? 0);
  res.writeHead(answer.status, wireHeaders(headers));
  res.end(answer.status === 204 ? undefined : body);
}
