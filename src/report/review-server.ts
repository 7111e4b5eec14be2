import { randomBytes } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { ReportNames } from './names.js';
import { acceptCheck, reviewableChecks, type ReviewableCheck } from './golden-review.js';
import { renderHtml } from './html.js';
import { openReport } from './read-report.js';

export interface ReviewServer {
  url: string;
  close(): Promise<void>;
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
/** The largest accept request: a list of check keys. */
const MAX_BODY = 256 * 1024;

/**
 * Serves a run's HTML report on loopback for golden review. The page is rendered with accept
 * buttons for the run's failed image checks; accepting writes a capture over its golden,
 * atomically. A request may name checks only, never a path, and is refused unless it comes from
 * the page itself: the Host is this server, the Origin is this server's, and it carries the
 * token the page was served with (a custom header, which another origin cannot send without a
 * preflight this server never grants). Files are served from the output folder only.
 */
export async function startReviewServer(options: {
  outputDir: string;
  host?: string;
  port?: number;
  /** The project root the report's goldens are named from; default: the working folder. */
  root?: string;
}): Promise<ReviewServer> {
  const outputDir = await realpath(resolve(options.outputDir));
  const root = resolve(options.root ?? process.cwd());
  const result = await openReport(outputDir);
  const checks = new Map<string, ReviewableCheck>(
    (await reviewableChecks(result, outputDir, root)).map((c) => [c.key, c]),
  );
  const names = new ReportNames(root, outputDir);
  const token = randomBytes(16).toString('hex');
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  const hosts = new Set<string>();

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) =>
      send(res, 500, 'text/plain; charset=utf-8', `internal error: ${(err as Error).message}`),
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page on another site that resolves its own name to this address (DNS rebinding) sends its own Host.
    if (!hosts.has(req.headers.host ?? '')) return send(res, 403, 'text/plain; charset=utf-8', 'wrong Host');
    const path = decodeURIComponent(new URL(req.url ?? '/', origin).pathname);
    if (req.method === 'POST' && path === '/api/accept') return accept(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed');
    // Browsers ask for an icon on their own; there is none, and that is not an error.
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (path === '/' || path === '/report.html') {
      const html = await renderHtml(result, { outputDir, names, review: { token, checks: new Set(checks.keys()) } });
      return send(res, 200, 'text/html; charset=utf-8', html);
    }
    return file(res, path);
  }

  async function accept(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fetchSite = req.headers['sec-fetch-site'];
    if (
      req.headers.origin !== origin ||
      (fetchSite !== undefined && fetchSite !== 'same-origin') ||
      req.headers['x-wbplay-review'] !== token
    ) {
      req.resume();
      return send(res, 403, 'text/plain; charset=utf-8', 'only the report page served here may accept goldens');
    }
    let body: { checks?: unknown };
    try {
      body = JSON.parse(await readBody(req)) as { checks?: unknown };
    } catch {
      return send(res, 400, 'text/plain; charset=utf-8', 'the body must be JSON: {"checks": ["<case>.<step>", ...]}');
    }
    const keys = Array.isArray(body.checks) ? body.checks.filter((k): k is string => typeof k === 'string') : [];
    const unknown = keys.filter((k) => !checks.has(k));
    if (keys.length === 0 || unknown.length > 0)
      return send(
        res,
        404,
        'text/plain; charset=utf-8',
        `no failed image check ${unknown.join(', ') || '(none named)'} in this run`,
      );
    for (const key of keys) await acceptCheck(checks.get(key)!);
    return send(res, 200, 'application/json', JSON.stringify({ accepted: keys }));
  }

  async function file(res: ServerResponse, path: string): Promise<void> {
    let real: string;
    try {
      real = await realpath(resolve(outputDir, `.${path}`));
    } catch {
      return send(res, 404, 'text/plain; charset=utf-8', 'not found');
    }
    if (!real.startsWith(outputDir + sep)) return send(res, 404, 'text/plain; charset=utf-8', 'not found');
    const type = TYPES[extname(real).toLowerCase()];
    if (!type) return send(res, 404, 'text/plain; charset=utf-8', 'not found');
    return send(res, 200, type, await readFile(real));
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
  return { url: `${origin}/`, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.destroy();
        fail(new Error('too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}
