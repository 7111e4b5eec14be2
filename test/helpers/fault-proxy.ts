// A loopback HTTP proxy in front of an archive that breaks chosen answers the way networks and
// archives break them: a connection reset mid-body, a body cut short, a 503/429 with Retry-After,
// one part of a multipart answer replaced. Everything else passes through untouched and
// streamed, so a client test sees the real archive except where the script says otherwise.
import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  /** Send the answer's headers and N body bytes, then reset the connection (TCP RST). */
  | { kind: 'reset-after'; bytes: number }
  /**
   * Send N body bytes and end cleanly. Against a Content-Length the connection then closes short
   * of it; a chunked or close-delimited answer ends with its last chunk, a short but well-formed body.
   */
  | { kind: 'truncate-after'; bytes: number }
  /** Answer this status without asking the upstream; `retryAfter` in seconds. */
  | { kind: 'status'; status: 503 | 429; retryAfter?: number }
  /** Replace the body of part `index` (from 0) of a multipart answer, keeping the framing valid. */
  | { kind: 'replace-part'; index: number; body: Buffer };

/** A fault for the next `times` (default 1) requests whose method (any when absent) and path+query match. */
export type FaultRule = Fault & { method?: string; path: RegExp; times?: number };

export interface ProxiedRequest {
  method: string;
  /** Path and query as the client sent them. */
  path: string;
  /** The status the client got. */
  status: number;
}

export interface FaultProxy {
  /** The proxy's base URL: the upstream's with the proxy's origin. */
  url: string;
  fault(rule: FaultRule): void;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** Headers of one hop, never forwarded; the length and chunking are set again by the proxy's own writer. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders, drop: readonly string[] = []): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP.has(name) && !drop.includes(name)));
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const rules: (FaultRule & { left: number })[] = [];
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  // No pooled upstream connections: a reused socket the archive already closed would be a fault nobody asked for.
  const agent = new Agent({ keepAlive: false });

  const take = (method: string, path: string): FaultRule | undefined => {
    const at = rules.findIndex((r) => {
      r.path.lastIndex = 0;
      return (r.method === undefined || r.method.toUpperCase() === method) && r.path.test(path);
    });
    if (at < 0) return undefined;
    const rule = rules[at]!;
    if (--rule.left <= 0) rules.splice(at, 1);
    return rule;
  };

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const rule = take(method, path);
    const answer = (status: number, headers: IncomingHttpHeaders): void => {
      requests.push({ method, path, status });
      res.writeHead(status, headers as Record<string, string | string[]>);
    };

    if (rule?.kind === 'status') {
      req.resume();
      answer(rule.status, {
        'content-type': 'text/plain',
        ...(rule.retryAfter !== undefined ? { 'retry-after': String(rule.retryAfter) } : {}),
      });
      res.end(`fault proxy: ${rule.status}\n`);
      return;
    }

    // The client's Host goes on, so an archive that writes its own URLs into answers (DICOMweb's
    // RetrieveURL) points them at the proxy and the client keeps coming through it.
    const out = request({
      agent,
      host: target.hostname,
      port: target.port,
      method,
      path,
      headers: forwardable(req.headers),
    });
    req.pipe(out);
    out.on('error', (err) => {
      if (res.headersSent) res.destroy();
      else {
        answer(502, { 'content-type': 'text/plain' });
        res.end(`fault proxy: upstream ${err.message}\n`);
      }
    });
    out.on('response', (up) => {
      const status = up.statusCode ?? 502;
      if (rule === undefined) {
        answer(status, forwardable(up.headers, ['transfer-encoding']));
        up.pipe(res);
      } else if (rule.kind === 'replace-part') void replaceInAnswer(up, rule, answer, res);
      else cutShort(up, rule, answer, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    fault(rule) {
      rules.push({ ...rule, left: rule.times ?? 1 });
    },
    requests,
    close() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Streams the first `bytes` of the body, then resets or ends as the fault says. */
function cutShort(
  up: IncomingMessage,
  fault: Extract<Fault, { kind: 'reset-after' | 'truncate-after' }>,
  answer: (status: number, headers: IncomingHttpHeaders) => void,
  res: ServerResponse,
): void {
  const headers = forwardable(up.headers, ['transfer-encoding']);
  // With a Content-Length the short body must end the connection; without one Node chunks it and ends it well-formed.
  if (fault.kind === 'truncate-after' && headers['content-length'] !== undefined) headers.connection = 'close';
  answer(up.statusCode ?? 502, headers);
  let sent = 0;
  const finish = (): void => {
    up.destroy();
    if (fault.kind === 'truncate-after') {
      res.end();
      return;
    }
    // The socket writes in order: once this empty write is done, everything before it has reached
    // the loopback peer. A reset that lands while those bytes are still unread reads as a plain
    // close on Linux; a moment's wait lets the client read them and then meet the reset itself.
    const socket = res.socket;
    socket?.write(Buffer.alloc(0), () => setTimeout(() => socket.resetAndDestroy(), 10));
  };
  if (fault.bytes === 0) {
    res.flushHeaders();
    finish();
    return;
  }
  up.on('data', (chunk: Buffer) => {
    if (sent >= fault.bytes) return;
    const piece = chunk.subarray(0, fault.bytes - sent);
    sent += piece.length;
    if (!res.write(piece)) {
      up.pause();
      res.once('drain', () => up.resume());
    }
    if (sent >= fault.bytes) finish();
  });
  up.on('end', () => {
    if (sent < fault.bytes) res.end();
  });
}

async function replaceInAnswer(
  up: IncomingMessage,
  fault: Extract<Fault, { kind: 'replace-part' }>,
  answer: (status: number, headers: IncomingHttpHeaders) => void,
  res: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of up) chunks.push(chunk as Buffer);
  let body: Buffer;
  try {
    body = replacePart(Buffer.concat(chunks), up.headers['content-type'] ?? '', fault.index, fault.body);
  } catch (err) {
    answer(502, { 'content-type': 'text/plain' });
    res.end(`fault proxy: ${(err as Error).message}\n`);
    return;
  }
  answer(up.statusCode ?? 502, {
    ...forwardable(up.headers, ['transfer-encoding', 'content-length']),
    'content-length': String(body.length),
  });
  res.end(body);
}

/** The multipart body with part `index`'s body replaced and its Content-Length, if it has one, set to match. */
function replacePart(body: Buffer, contentType: string, index: number, replacement: Buffer): Buffer {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!/^multipart\//i.test(contentType) || boundary === undefined)
    throw new Error(`replace-part needs a multipart answer, got ${contentType || 'no Content-Type'}`);
  const delimiter = Buffer.from(`--${boundary}`);
  if (replacement.includes(delimiter)) throw new Error('the replacement body holds the boundary');
  // A delimiter counts only at the body's start or right after CRLF; the same bytes inside a part do not.
  const at: number[] = [];
  for (let i = body.indexOf(delimiter); i >= 0; i = body.indexOf(delimiter, i + delimiter.length)) {
    if (i === 0 || (body[i - 2] === 0x0d && body[i - 1] === 0x0a)) at.push(i);
  }
  if (index < 0 || index >= at.length - 1)
    throw new Error(`replace-part ${index}: the answer has ${Math.max(0, at.length - 1)} parts`);
  const lineEnd = body.indexOf('\r\n', at[index]!) + 2;
  const bodyEnd = at[index + 1]! - 2;
  // The head ends at the first blank line; with no headers that is the delimiter line's own CRLF and one more.
  const blank = body.indexOf('\r\n\r\n', lineEnd - 2);
  if (lineEnd < 2 || blank < 0 || blank + 4 > bodyEnd)
    throw new Error(`replace-part ${index}: the part has no blank line`);
  const head = body
    .subarray(lineEnd, blank + 4)
    .toString('latin1')
    .replace(/^(content-length:[ \t]*)\d+/im, `$1${replacement.length}`);
  return Buffer.concat([body.subarray(0, lineEnd), Buffer.from(head, 'latin1'), replacement, body.subarray(bodyEnd)]);
}
