import { readFile, realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';

/** A page served on loopback; `url` is its address, the page at `/`. */
export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** An API route: answered only for requests from the page itself. */
export type PageRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface PageServerOptions {
  /** Real path of the folder whose files the page may load (its images). */
  outputDir: string;
  host?: string;
  port?: number;
  /** The page at `/`, made for each request. */
  page(): Promise<string>;
  /** The header that carries `token` on API requests, e.g. `x-wbplay-review`. */
  header: string;
  token: string;
  /** `POST /api/accept` and the like, by `METHOD /path`. */
  routes: Record<string, PageRoute>;
  /** Content-Security-Policy of the page, also sent as a header. */
  csp?: string;
}

const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.xml': 'application/xml',
  '.csv': 'text/csv',
  '.html': 'text/html; charset=utf-8',
};
/** The largest API request body: a list of check keys. */
const MAX_BODY = 256 * 1024;
const TEXT = 'text/plain; charset=utf-8';

/**
 * Serves one page on loopback with the guarantees `show-report` and `ui` share. Every request
 * must name this server in its Host (a page on another site that resolves its own name to this
 * address, DNS rebinding, sends its own). An API request is refused unless it comes from the
 * page: its Origin is this server's (a POST always carries one; a same-origin GET may carry
 * none), the browser did not mark it cross-site, and it carries the token the page was served
 * with in a custom header, which another origin cannot send without a preflight this server
 * never grants. Other paths are files of the output folder, resolved to their real path and
 * served only from inside it, and only of the types a report links.
 */
export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  const hosts = new Set<string>();

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, TEXT, `internal error: ${(err as Error).message}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hosts.has(req.headers.host ?? '')) return send(res, 403, TEXT, 'wrong Host');
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', origin).pathname);
    } catch {
      return send(res, 400, TEXT, 'bad path');
    }
    const route = options.routes[`${req.method ?? ''} ${path}`];
    if (route) {
      if (!fromPage(req)) {
        req.resume();
        return send(res, 403, TEXT, 'only the page served here may ask this');
      }
      return route(req, res);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, TEXT, 'method not allowed');
    // Browsers ask for an icon on their own; there is none, and that is not an error.
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (path === '/' || path === '/index.html' || path === '/report.html') {
      const headers: Record<string, string> = options.csp ? { 'Content-Security-Policy': options.csp } : {};
      return send(res, 200, 'text/html; charset=utf-8', await options.page(), headers);
    }
    return file(res, path);
  }

  function fromPage(req: IncomingMessage): boolean {
    const fetchSite = req.headers['sec-fetch-site'];
    const sent = req.headers.origin;
    return (
      (sent === origin || (sent === undefined && req.method === 'GET')) &&
      (fetchSite === undefined || fetchSite === 'same-origin') &&
      req.headers[options.header] === options.token
    );
  }

  async function file(res: ServerResponse, path: string): Promise<void> {
    let real: string;
    try {
      real = await realpath(resolve(options.outputDir, `.${path}`));
    } catch {
      return send(res, 404, TEXT, 'not found');
    }
    if (!real.startsWith(options.outputDir + sep)) return send(res, 404, TEXT, 'not found');
    const type = TYPES[extname(real).toLowerCase()];
    if (!type) return send(res, 404, TEXT, 'not found');
    const bytes = await readFile(real).catch(() => undefined);
    if (!bytes) return send(res, 404, TEXT, 'not found');
    return send(res, 200, type, bytes);
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => ok());
  });
  const { port } = server.address() as { port: number };
  const shownHost = host.includes(':') ? `[${host}]` : host;
  origin = `http://${shownHost}:${port}`;
  hosts.add(`${shownHost}:${port}`);
  if (host === '127.0.0.1' || host === '::1') hosts.add(`localhost:${port}`);
  return {
    url: `${origin}/`,
    close: () =>
      new Promise<void>((ok) => {
        // Open event streams would hold the server open for ever.
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}

/** A request's body as JSON, at most MAX_BODY bytes; undefined when it is not JSON or too large. */
export function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((ok) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.destroy();
        ok(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        ok(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        ok(undefined);
      }
    });
    req.on('error', () => ok(undefined));
  });
}
