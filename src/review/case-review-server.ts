import { randomBytes } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { FileHasher } from '../files/file-hash.js';
import { readJson, send, startPageServer, type PageServer } from '../report/page-server.js';
import { CASE_REVIEW_CSP, caseReviewPage } from './case-review-page.js';
import { readReviewCases, type ReviewCase, type ReviewCases } from './review-cases.js';
import { ReviewStore, checkChange } from './review-store.js';
import { staleCaptures } from '../result/review-file.js';

export interface CaseReviewServer extends PageServer {
  /** How many cases the page shows. */
  cases: number;
}

const TEXT = 'text/plain; charset=utf-8';
/** A page of the grid asks for its own cases; only the filter asks for every reviewed case. */
const MAX_STALE_ASKED = 1000;
const JSON_TYPE = 'application/json';

/**
 * Serves the review page of a finished run on loopback with the guarantees of `show-report`
 * (startPageServer: Host, Origin and a token on every request of the page). The page names a
 * case by its place in the run and a capture by its place in the case, never a path: captures
 * are read only from the paths the report gives, which may lie outside the folder (the shards
 * of a merged run). Changes are written to review.json and review.csv at once.
 */
export async function startCaseReviewServer(options: {
  outputDir: string;
  reviewer: string;
  host?: string;
  port?: number;
}): Promise<CaseReviewServer> {
  // A folder that is not there is said so by the report's reader, which names the file it wants.
  const outputDir = await realpath(resolve(options.outputDir)).catch(() => resolve(options.outputDir));
  const cases = await readReviewCases(outputDir);
  const store = await ReviewStore.open(cases, options.reviewer);
  const hasher = new FileHasher();
  const token = randomBytes(16).toString('hex');
  const hashes = (c: ReviewCase): Promise<Record<string, string | undefined>> => currentHashes(cases, c, hasher);

  const server = await startPageServer({
    outputDir,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    header: 'x-wbplay-review',
    token,
    csp: CASE_REVIEW_CSP,
    page: async () => caseReviewPage(token),
    routes: {
      'GET /api/cases': async (_req, res) => {
        const index = cases.cases.map((c) => {
          const r = store.review.cases[c.name];
          return {
            name: c.name,
            status: c.status,
            fields: c.fields,
            captures: c.captures.length,
            ...(r
              ? {
                  review: {
                    ...(r.verdict !== undefined ? { verdict: r.verdict } : {}),
                    tags: r.tags,
                    representative: r.representative,
                    ...(r.disagreement ? { disagreement: true } : {}),
                  },
                }
              : {}),
          };
        });
        send(
          res,
          200,
          JSON_TYPE,
          JSON.stringify({ reviewer: options.reviewer, fieldNames: cases.fieldNames, cases: index }),
        );
      },
      'GET /api/case': async (req, res) => {
        const c = caseOf(req, cases);
        if (!c) return send(res, 404, TEXT, 'no such case');
        const current = await hashes(c);
        const review = store.review.cases[c.name];
        send(
          res,
          200,
          JSON_TYPE,
          JSON.stringify({
            captures: c.captures.map((k) => ({ ...k, sha256: current[k.path] ?? null })),
            review: review ?? null,
            stale: staleCaptures(review, current),
          }),
        );
      },
      // Which of the cases named (or, naming none, of every reviewed case) have a stale verdict.
      'GET /api/stale': async (req, res) => {
        const named = query(req).get('cases');
        const positions =
          named === null
            ? cases.cases.flatMap((c, i) => (store.review.cases[c.name] ? [i] : []))
            : named
                .split(',')
                .filter((p) => p !== '')
                .map(Number);
        if (positions.length > MAX_STALE_ASKED || positions.some((i) => !Number.isInteger(i) || !cases.cases[i]))
          return send(res, 400, TEXT, `name at most ${MAX_STALE_ASKED} cases of this run by their places`);
        const stale: number[] = [];
        for (const i of positions) {
          const c = cases.cases[i]!;
          const review = store.review.cases[c.name];
          if (review && staleCaptures(review, await hashes(c)).length > 0) stale.push(i);
        }
        send(res, 200, JSON_TYPE, JSON.stringify({ checked: positions, stale }));
      },
      'GET /api/capture': async (req, res) => {
        const c = caseOf(req, cases);
        const n = Number(query(req).get('n'));
        const capture = c && Number.isInteger(n) ? c.captures[n] : undefined;
        if (!capture) return send(res, 404, TEXT, 'no such capture');
        const bytes = await readFile(cases.file(capture.path)).catch(() => undefined);
        if (!bytes) return send(res, 404, TEXT, `${capture.path} is gone`);
        send(res, 200, 'image/png', bytes);
      },
      'POST /api/review': async (req, res) => saveRoute(req, res),
    },
  });

  async function saveRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJson(req)) as { case?: unknown } | undefined;
    const c = typeof body?.case === 'number' ? cases.cases[body.case] : undefined;
    if (!c) return send(res, 404, TEXT, 'the body must name a case of this run by its place: {"case": 0, ...}');
    const change = checkChange(body, new Set(c.captures.map((k) => k.path)));
    if (typeof change === 'string') return send(res, 400, TEXT, change);
    const review = await store.change(c.name, change);
    send(res, 200, JSON_TYPE, JSON.stringify({ review, stale: staleCaptures(review, await hashes(c)) }));
  }

  return { ...server, cases: cases.cases.length };
}

function query(req: IncomingMessage): URLSearchParams {
  return new URL(req.url ?? '/', 'http://page').searchParams;
}

function caseOf(req: IncomingMessage, cases: ReviewCases): ReviewCase | undefined {
  const i = Number(query(req).get('case'));
  return Number.isInteger(i) ? cases.cases[i] : undefined;
}

/** Each capture's SHA-256 now, or undefined when it is gone. */
async function currentHashes(
  cases: ReviewCases,
  c: ReviewCase,
  hasher: FileHasher,
): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  for (const k of c.captures) out[k.path] = await hasher.hash(cases.file(k.path));
  return out;
}
