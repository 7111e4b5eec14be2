import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReferenceWorkbenchOptions } from './config.js';
import { guardConnections, LINGER_MS, type ConnectionGuard } from './connections.js';
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
  /** The latest requests (`events.entries`, see KEPT_EVENTS); every request goes to the `events` file if given, and to subscribers. */
  events: EventLog;
  workbench: Workbench;
  /** Closes every connection (stalled ones too), removes temp directories, flushes the log. */
  stop(): Promise<void>;
}

/** Starts the reference workbench on `host:port` (127.0.0.1 and a free port by default). */
export async function startReferenceWorkbench(
  options: ReferenceWorkbenchOptions = {},
  internals: WorkbenchInternals = {},
): Promise<ReferenceWorkbenchHandle> {
  const workbench = await createWorkbench(options, internals);
  // The real server's HTTP library answers requests without a Host header like any other.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    guard.track(req, res);
    // The handler answers every failure itself; this only guards the socket layer (a header
    // Node refuses, say), so that nothing can take the process down.
    serve(workbench, guard, req, res).catch(() => {
      if (!res.headersSent)
        send(
          res,
          problemResponse(
            new Problem('INTERNAL_ERROR', 'An unexpected error occurred while answering the request'),
            '',
          ),
        );
      else req.socket.destroy();
    });
  });
  const guard = guardConnections(server, {
    maxPayloadBytes: workbench.config.maxPayloadBytes,
    answerTunnel: (req) => workbench.handle(simRequest(req, new Uint8Array(0))),
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
        guard.closeAll();
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
async function serve(
  workbench: Workbench,
  guard: ConnectionGuard,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { body, tooLarge, unread, lengthUnknown } = await readBody(req, workbench.config.maxPayloadBytes);
  const answer: HandledResponse = await workbench.handle(simRequest(req, body), {
    bodyTooLarge: tooLarge,
    bodyLengthUnknown: lengthUnknown,
  });
  if (answer.abort === 'drop') {
    req.socket.destroy();
    return;
  }
  // A stall keeps the connection open without an answer until the client gives up or the server stops.
  if (answer.abort === 'stall') return;
  // With part of the body still unread the connection cannot carry another request.
  if (unread) guard.refuse(req, answer);
  else send(res, answer);
}

function simRequest(req: IncomingMessage, body: Uint8Array): SimRequest {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return {
    method: req.method ?? 'GET',
    path: q < 0 ? url : url.slice(0, q),
    query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
    headers,
    body,
    clientIp: req.socket.remoteAddress ?? '',
  };
}

interface ReadBody {
  body: Uint8Array;
  tooLarge: boolean;
  /** The request's framing announces a body whose end cannot be found (RFC 9112 §6.3: 400 and close). */
  lengthUnknown: boolean;
  /** Part of the body was not read: the connection cannot carry another request. */
  unread: boolean;
}

/**
 * The body, unless the declared or streamed size passes the limit. Past the limit the rest is
 * still read, and dropped, before the 413 goes out: answering while the client is still sending
 * and then closing makes the kernel reset the connection, and the client sees the reset
 * instead of the 413. A client that keeps sending for `LINGER_MS` past the limit, or waits for
 * `100 Continue` before sending a body over the limit, is answered at once (`unread`).
 */
function readBody(req: IncomingMessage, max: number): Promise<ReadBody> {
  const declared = Number(req.headers['content-length'] ?? 0);
  const coding = req.headers['transfer-encoding'];
  if (coding !== undefined && !/(^|,)\s*chunked\s*$/i.test(coding))
    return Promise.resolve({ body: new Uint8Array(0), tooLarge: false, lengthUnknown: true, unread: true });
  if (declared > max && /100-continue/i.test(req.headers.expect ?? ''))
    return Promise.resolve({ body: new Uint8Array(0), tooLarge: true, lengthUnknown: false, unread: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (unread: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      const tooLarge = size > max || declared > max;
      // A plain Uint8Array of its own: the handler never sees Node's pooled Buffers, whose
      // `slice` shares memory and whose `buffer` is larger than the body.
      resolve({ body: tooLarge ? new Uint8Array(0) : concat(chunks, size), tooLarge, lengthUnknown: false, unread });
    };
    const overLimit = (): void => {
      chunks.length = 0;
      timer ??= setTimeout(() => done(true), LINGER_MS);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) overLimit();
      else chunks.push(chunk);
    };
    if (declared > max) overLimit();
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
  const body =
    answer.body === undefined ? undefined : typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.status !== 204) headers['content-length'] = String(body?.length ?? 0);
  res.writeHead(answer.status, wireHeaders(headers));
  res.end(answer.status === 204 ? undefined : body);
}
