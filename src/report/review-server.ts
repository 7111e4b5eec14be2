import { randomBytes } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { acceptCheck, reviewableChecks, type ReviewableCheck } from './golden-review.js';
import { renderHtml } from './html.js';
import { readJson, send, startPageServer, type PageRoute, type PageServer } from './page-server.js';
import { ReportNames } from './names.js';
import { openReport } from './read-report.js';

export type ReviewServer = PageServer;

/**
 * Serves a run's HTML report on loopback for golden review. The page is rendered with accept
 * buttons for the run's failed image checks; accepting writes a capture over its golden,
 * atomically. A request may name checks only, never a path, and is answered only when it comes
 * from the page itself (startPageServer's rules); files are served from the output folder only.
 */
export async function startReviewServer(options: {
  outputDir: string;
  host?: string;
  port?: number;
  /** The project root the report's goldens are named from; default: the working folder. */
  root?: string;
}): Promise<ReviewServer> {
  const root = resolve(options.root ?? process.cwd());
  const outputDir = await realpath(resolve(options.outputDir));
  const result = await openReport(outputDir);
  const checks = new Map<string, ReviewableCheck>(
    (await reviewableChecks(result, outputDir, root)).map((c) => [c.key, c]),
  );
  const names = new ReportNames(root, outputDir);
  const token = randomBytes(16).toString('hex');
  return startPageServer({
    outputDir,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    header: 'x-wbplay-review',
    token,
    page: () => renderHtml(result, { outputDir, names, review: { token, checks: new Set(checks.keys()) } }),
    routes: { 'POST /api/accept': acceptRoute(() => checks) },
  });
}

/**
 * `POST /api/accept` with `{"checks": ["<case>.<step>", ...]}`: every check named must be one
 * of `checks()` (a failed image check of the run shown), else nothing is written.
 */
export function acceptRoute(
  checks: () => ReadonlyMap<string, ReviewableCheck>,
  accepted?: (keys: readonly string[]) => void,
): PageRoute {
  return async (req, res) => {
    const body = (await readJson(req)) as { checks?: unknown } | undefined;
    if (body === undefined || body === null || typeof body !== 'object')
      return send(res, 400, 'text/plain; charset=utf-8', 'the body must be JSON: {"checks": ["<case>.<step>", ...]}');
    const known = checks();
    const keys = Array.isArray(body.checks) ? body.checks.filter((k): k is string => typeof k === 'string') : [];
    const unknown = keys.filter((k) => !known.has(k));
    if (keys.length === 0 || unknown.length > 0)
      return send(
        res,
        404,
        'text/plain; charset=utf-8',
        `no failed image check ${unknown.join(', ') || '(none named)'} in this run`,
      );
    for (const key of keys) await acceptCheck(known.get(key)!);
    accepted?.(keys);
    return send(res, 200, 'application/json', JSON.stringify({ accepted: keys }));
  };
}
