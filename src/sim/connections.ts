import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { HandledResponse } from './handler.js';
import { Problem, problemResponse } from './problem.js';
import { wireHeaders } from './wire-headers.js';

/**
 * How long a connection that is being closed keeps reading (and dropping) what the client still
 * sends after its answer. Closing a socket while unread bytes are arriving makes the kernel send
 * a reset, which destroys the answer in the client's receive buffer before it is read: a client
 * that sent a malformed or over-size request would see "connection reset" instead of the 400 or
 * 413 that explains it. After this time the socket is closed regardless, so a client that never
 * stops sending cannot hold it.
 */
export const LINGER_MS = 5_000;

export interface ConnectionGuard {
  /** Call for every request: a parse error on the same connection waits until this answer is sent. */
  track(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Answers a request whose body was not read (it has no knowable length, or the client keeps
   * sending past the payload limit) straight on its socket, then closes the connection without
   * a reset: node:http would destroy it right after an answer marked `Connection: close`.
   */
  refuse(req: IncomingMessage, answer: HandledResponse): void;
  /** Closes the connections this guard keeps open (for the server's stop). */
  closeAll(): void;
}

export interface GuardOptions {
  /** The largest body; a client that announces more is answered 413 without `100 Continue`. */
  maxPayloadBytes: number;
  /** Answers a CONNECT request (which Node hands over as a bare socket) like any other request. */
  answerTunnel: (req: IncomingMessage) => Promise<HandledResponse>;
}

/**
 * Guards the socket layer of the reference workbench: a request Node's HTTP parser refuses
 * (unknown method, broken framing, a body where the framing announces none) gets a 400 problem
 * instead of a bare 400 and a reset; a CONNECT gets an answer instead of a silently closed
 * socket; and no connection is closed while the client is still sending.
 */
export function guardConnections(server: Server, opts: GuardOptions): ConnectionGuard {
  const inFlight = new WeakMap<Duplex, ServerResponse>();
  /** Sockets that will be closed once the answer in flight on them is sent. */
  const awaiting = new WeakSet<Duplex>();
  const closing = new Set<Duplex>();

  const lingerClose = (socket: Duplex, answer?: Uint8Array): void => {
    if (socket.destroyed || closing.has(socket)) return;
    closing.add(socket);
    // The parser error listener of node:http is gone by now; a late reset must not become an uncaught error.
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      closing.delete(socket);
    });
    // A socket that is already ending (node:http closes after answering `Connection: close`) keeps that answer.
    if (socket.writable) socket.end(answer);
  };

  // node:http ends a connection after an answer to `Connection: close` (or to HTTP/1.0) with
  // destroySoon, which destroys the socket as soon as the answer is written, while a client may
  // still be sending: the staged close above takes its place on every connection.
  server.on('connection', (socket: Socket) => {
    socket.destroySoon = () => lingerClose(socket);
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (closing.has(socket) || awaiting.has(socket)) return;
    const answer = rawAnswer(answerToParseError(err));
    const pending = inFlight.get(socket);
    // The answer in flight on this connection is finished first, so the two never interleave.
    if (pending && !pending.writableFinished) {
      awaiting.add(socket);
      socket.on('error', () => undefined);
      pending.once('close', () => lingerClose(socket, answer));
    } else lingerClose(socket, answer);
  });

  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    // Whatever follows the CONNECT head is read and dropped; there is no tunnel to forward it to.
    socket.on('data', () => undefined);
    opts
      .answerTunnel(req)
      .catch((): HandledResponse =>
        problemResponse(new Problem('INTERNAL_ERROR', 'An unexpected error occurred while answering the request'), ''),
      )
      .then(
        (answer) => (answer.abort ? socket.destroy() : lingerClose(socket, rawAnswer(answer))),
        () => socket.destroy(),
      );
  });

  // Without this node:http sends `100 Continue` itself and the client starts a body that is refused anyway.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!(Number(req.headers['content-length'] ?? 0) > opts.maxPayloadBytes)) res.writeContinue();
    server.emit('request', req, res);
  });

  return {
    track(req, res) {
      inFlight.set(req.socket, res);
      res.once('close', () => {
        if (inFlight.get(req.socket) === res) inFlight.delete(req.socket);
      });
    },
    refuse(req, answer) {
      req.resume();
      lingerClose(req.socket, rawAnswer(answer));
    },
    closeAll() {
      for (const socket of closing) socket.destroy();
    },
  };
}

/**
 * What a request the HTTP parser refused is answered: headers over Node's size limit and a
 * request that took too long keep the HTTP layer's bare 431 and 408 (like the bare 413 of the
 * payload limit); everything else is the client's malformed request, 400 INVALID_REQUEST.
 */
function answerToParseError(err: NodeJS.ErrnoException): HandledResponse {
  if (err.code === 'HPE_HEADER_OVERFLOW') return { status: 431, headers: {} };
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, headers: {} };
  return problemResponse(
    new Problem(
      'INVALID_REQUEST',
      'Malformed HTTP request: the request line, headers or body framing could not be parsed',
    ),
    '',
  );
}

/** An answer written straight to a socket (there is no ServerResponse at this level); the connection closes after it. */
function rawAnswer(answer: HandledResponse): Uint8Array {
  const body =
    answer.body === undefined
      ? new Uint8Array(0)
      : typeof answer.body === 'string'
        ? Buffer.from(answer.body)
        : answer.body;
  const headers = wireHeaders({ ...answer.headers, 'content-length': String(body.length), connection: 'close' });
  const head = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}
