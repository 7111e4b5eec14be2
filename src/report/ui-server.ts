import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { readJson, send, startPageServer, type PageServer } from './page-server.js';
import { acceptRoute } from './review-server.js';
import type { LiveRun, UiEvent } from './ui-feed.js';
import { UI_CSP, uiPage } from './ui-page.js';

export interface UiServerOptions {
  /** Real path of the output folder: the page loads images from it and from nowhere else. */
  outputDir: string;
  host?: string;
  port?: number;
  live: LiveRun;
  /** The page asks for another run now (Run again, or step snapshots turned on). */
  rerun(): void;
}

/** A comment line now and then keeps proxies and idle timers from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Serves the live page of `wbplay ui` with the guarantees of `show-report` (startPageServer):
 * its state and every change as server-sent events, and the page's three requests: accept a
 * failed image check of the runs shown (by its name, never a path), run again, and turn step
 * snapshots on or off.
 */
export async function startUiServer(options: UiServerOptions): Promise<PageServer> {
  const token = randomBytes(16).toString('hex');
  const { live } = options;
  return startPageServer({
    outputDir: options.outputDir,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    header: 'x-wbplay-ui',
    token,
    csp: UI_CSP,
    page: async () => uiPage(token),
    routes: {
      'GET /api/events': async (req, res) => {
        res.writeHead(200, {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
        });
        write(res, { type: 'state', data: live.snapshot });
        const stop = live.subscribe((event) => write(res, event));
        const timer = setInterval(() => res.write(': still here\n\n'), KEEP_ALIVE_MS);
        req.once('close', () => {
          clearInterval(timer);
          stop();
        });
      },
      'POST /api/accept': acceptRoute(
        () => live.reviewable(),
        (keys) => live.accepted(keys),
      ),
      'POST /api/run': async (req, res) => {
        req.resume();
        options.rerun();
        send(res, 202, 'application/json', '{"run":"queued"}');
      },
      'POST /api/snapshots': async (req, res) => {
        const body = (await readJson(req)) as { on?: unknown } | undefined;
        if (typeof body?.on !== 'boolean')
          return send(res, 400, 'text/plain; charset=utf-8', 'the body must be JSON: {"on": true} or {"on": false}');
        const was = live.snapshots;
        live.snapshots = body.on;
        // The steps shown were captured without snapshots: the next run takes them.
        if (body.on && !was) options.rerun();
        send(res, 200, 'application/json', JSON.stringify({ snapshots: body.on }));
      },
    },
  });
}

function write(res: ServerResponse, event: UiEvent): void {
  res.write(`event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
}
