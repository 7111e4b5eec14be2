import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as it arrived: what a client test asserts on. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, still percent-encoded as sent. */
  path: string;
  query: URLSearchParams;
  /** The raw query string (without `?`), to assert on exact encoding. */
  rawQuery: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A programmed answer. `json` is serialized as is; `body` is sent raw. */
export interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string | Uint8Array;
}

/**
 * `hang`: never answer; `reset`: destroy the connection without an answer; `{socket}`: take
 * the connection over and write raw bytes (an endless body, headers without end, not HTTP).
 */
export type Action = ScriptedAnswer | 'hang' | 'reset' | { socket: (socket: Socket) => void };
export type Script = Action | ((req: RecordedRequest) => Action | Promise<Action>);

/**
 * A small HTTP server on 127.0.0.1:0 for client tests: answers are programmed per
 * `METHOD path` (path without query), every request is recorded, anything unprogrammed gets
 * a bare 404 like the workbench's HTTP library gives.
 */
export class ScriptedServer {
  readonly requests: RecordedRequest[] = [];
  readonly #routes = new Map<string, Script[]>();
  readonly #sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ScriptedServer> {
    // The handlers need the instance, which needs the bound port: filled in after listen.
    const box: { self?: ScriptedServer } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on(
        'end',
        () => void box.self?.handle(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks), res),
      );
    });
    server.on('connection', (s) => {
      box.self?.track(s);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    box.self = new ScriptedServer(server, `http://127.0.0.1:${port}`);
    return box.self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Programs the answer(s) to `METHOD path`. Several scripts are used in turn; the last one
   * stays for any further request.
   */
  on(method: string, path: string, ...scripts: Script[]): this {
    this.#routes.set(`${method} ${path}`, scripts);
    return this;
  }

  /** The only request recorded so far (fails the test if there is not exactly one). */
  only(): RecordedRequest {
    if (this.requests.length !== 1)
      throw new Error(
        `expected exactly one request, got ${this.requests.map((r) => `${r.method} ${r.path}`).join(', ') || 'none'}`,
      );
    return this.requests[0] as RecordedRequest;
  }

  last(): RecordedRequest {
    const r = this.requests.at(-1);
    if (!r) throw new Error('no request recorded');
    return r;
  }

  reset(): void {
    this.requests.length = 0;
    this.#routes.clear();
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(s: Socket): void {
    this.#sockets.add(s);
    s.on('close', () => this.#sockets.delete(s));
  }

  private async handle(
    method: string,
    rawUrl: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const rawQuery = q < 0 ? '' : rawUrl.slice(q + 1);
    const req: RecordedRequest = { method, path, query: new URLSearchParams(rawQuery), rawQuery, headers, body };
    this.requests.push(req);
    const scripts = this.#routes.get(`${method} ${path}`);
    const script = scripts && scripts.length > 1 ? scripts.shift() : scripts?.[0];
    const action = script === undefined ? { status: 404 } : typeof script === 'function' ? await script(req) : script;
    if (action === 'hang') return;
    if (action === 'reset') {
      res.socket?.destroy();
      return;
    }
    if ('socket' in action) {
      if (res.socket) action.socket(res.socket);
      return;
    }
    const out: Record<string, string> = { ...action.headers };
    let payload: string | Uint8Array | undefined = action.body;
    if (action.json !== undefined) {
      payload = JSON.stringify(action.json);
      out['content-type'] ??= 'application/json';
    }
    res.writeHead(action.status ?? 200, out);
    res.end(payload);
  }
}

/** The workbench's `{data, meta}` envelope. */
export function envelope(data: unknown, meta?: Record<string, unknown>): ScriptedAnswer {
  return { json: meta ? { data, meta } : { data } };
}

/** A workbench problem answer. */
export function problem(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): ScriptedAnswer {
  return {
    status,
    headers,
    json: {
      error: {
        type: `https://rest-api.mitk.org/errors/${code}`,
        code,
        title: code.toLowerCase(),
        message,
        status,
        ...extra,
      },
    },
  };
}
