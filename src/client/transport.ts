import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { request, type Dispatcher } from 'undici';
import { VERSION } from '../version.js';
import { createDispatcher, type ProxyOptions } from './dispatcher.js';
import { apiErrorFrom, networkErrorFrom, TimeoutReason, type HeaderValue } from './error-mapping.js';
import { WorkbenchError, WorkbenchProtocolError, WorkbenchUsageError, type RequestTarget } from './errors.js';
import { isLoopback } from './hosts.js';
import { toJson } from './json-body.js';
import { declaredLength, formatBytes, readAnswerBody } from './answer-body.js';
import { MAX_ERROR_BODY_BYTES, MAX_JSON_BYTES } from './limits.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const API_PREFIX = '/api/v1';

export interface TransportOptions extends ProxyOptions {
  /** Server root such as `http://localhost:8080` (a trailing `/` or `/api/v1` is tolerated). */
  url: string;
  /** Sent as `Authorization: Bearer <token>` on every request. */
  token?: string;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Allow a token over plain `http://` to a host that is not loopback (it travels in cleartext). */
  allowInsecureToken?: boolean;
  /** Called after every exchange, for logging attempts. Never receives headers or the token. */
  onExchange?: (event: ExchangeEvent) => void;
}

/** Per-call overrides accepted by every operation. */
export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ExchangeEvent {
  method: string;
  /** Path including `/api/v1`. */
  path: string;
  /** Query string without `?` (empty when none). */
  query: string;
  /** HTTP status, or null when no answer arrived. */
  status: number | null;
  durationMs: number;
  /** The error this exchange ends with (a non-2xx answer or a network failure), else null. */
  error: WorkbenchError | null;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below `/api/v1`, segments already encoded. */
  path: string;
  /** Entries with `undefined` are left out; arrays repeat the key. */
  query?: Array<[string, QueryValue]>;
  /** Serialized with the float-aware serializer; sets `Content-Type: application/json`. */
  json?: unknown;
  /** Raw body (bytes or a stream); give `content-type` in `headers`. */
  body?: Uint8Array | Readable;
  headers?: Record<string, string>;
  call?: CallOptions;
  /**
   * Bytes sent so far for a streamed body. While it grows the deadline is pushed back, so a
   * long upload that keeps moving is not cut off by a per-request timeout.
   */
  progress?: () => number;
  /** The most of a 2xx answer kept in memory, and what it is (for the message); a JSON answer by default. */
  answer?: AnswerLimit;
}

export interface AnswerLimit {
  maxBytes: number;
  /** e.g. `a screenshot`. */
  what: string;
}

const JSON_ANSWER: AnswerLimit = { maxBytes: MAX_JSON_BYTES, what: 'a JSON answer' };

export interface Reply {
  status: number;
  headers: Record<string, HeaderValue>;
  body: Buffer;
  target: RequestTarget;
}

/**
 * The one way the client talks to a workbench: base URL, auth, timeouts, dispatcher and
 * error mapping live here and nowhere else. Every non-2xx answer is thrown as a
 * `WorkbenchApiError`, every failure without an answer as a `WorkbenchNetworkError`.
 */
export class Transport {
  readonly root: URL;
  readonly timeoutMs: number;
  readonly #token: string | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #onExchange: ((event: ExchangeEvent) => void) | undefined;

  constructor(opts: TransportOptions) {
    this.root = parseRoot(opts.url);
    const token = opts.token === '' ? undefined : opts.token;
    if (
      token !== undefined &&
      this.root.protocol === 'http:' &&
      !isLoopback(this.root.hostname) &&
      opts.allowInsecureToken !== true
    ) {
      throw new WorkbenchUsageError(
        'INSECURE_TOKEN',
        `refusing to send the API token in cleartext to ${this.root.host} over http://; use https://, a loopback address, or pass allowInsecureToken: true if the network is trusted`,
      );
    }
    if (opts.timeoutMs !== undefined) checkTimeout(opts.timeoutMs, 'timeoutMs');
    this.#token = token;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#dispatcher = createDispatcher(this.root, opts);
    this.#onExchange = opts.onExchange;
  }

  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /** The server root as given, without trailing slash, e.g. `http://localhost:8080`. */
  get url(): string {
    return this.root.href.replace(/\/+$/, '');
  }

  async send(spec: RequestSpec): Promise<Reply> {
    const path = API_PREFIX + spec.path;
    const target: RequestTarget = { method: spec.method, path };
    const query = queryString(spec.query);
    const url = `${this.url}${path}${query ? `?${query}` : ''}`;
    const timeoutMs = spec.call?.timeoutMs ?? this.timeoutMs;
    checkTimeout(timeoutMs, 'timeoutMs');
    const headers: Record<string, string> = {
      'user-agent': `wbplay/${VERSION}`,
      accept: 'application/json',
      ...spec.headers,
    };
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    let body: string | Uint8Array | Readable | undefined = spec.body;
    if (spec.json !== undefined) {
      body = toJson(spec.json);
      headers['content-type'] = 'application/json';
    }

    const deadline = new Deadline(timeoutMs, spec.call?.signal, spec.progress);
    const started = performance.now();
    let status: number | null = null;
    try {
      const res = await request(url, {
        method: spec.method,
        headers,
        body: body ?? null,
        dispatcher: this.#dispatcher,
        signal: deadline.signal,
      });
      status = res.statusCode;
      const ok = status >= 200 && status <= 299;
      // The deadline stays armed while the body arrives: it bounds headers and body together.
      const limit = ok ? (spec.answer ?? JSON_ANSWER) : { maxBytes: MAX_ERROR_BODY_BYTES, what: 'an error answer' };
      const announced = declaredLength(res.headers['content-length']);
      if (ok && announced !== null && announced > limit.maxBytes) {
        res.body.destroy();
        throw tooLarge(
          target,
          status,
          `announces ${announced} bytes, more than the ${formatBytes(limit.maxBytes)} the client keeps for ${limit.what}; it was not read`,
        );
      }
      // Of an error answer only the start is kept; its status still says what happened.
      const { bytes, cut } = await readAnswerBody(res.body, limit.maxBytes);
      if (ok && cut)
        throw tooLarge(
          target,
          status,
          `goes on past ${formatBytes(limit.maxBytes)}, the most the client keeps for ${limit.what}; it was not read further`,
        );
      const reply: Reply = { status, headers: res.headers, body: bytes, target };
      if (!ok) throw apiErrorFrom(status, res.headers, bytes, target);
      this.#emit(target, query, status, started, null);
      return reply;
    } catch (err) {
      const mapped = err instanceof WorkbenchError ? err : networkErrorFrom(err, target, deadline.signal, url);
      this.#emit(target, query, status, started, mapped);
      throw mapped;
    } finally {
      deadline.clear();
      if (body instanceof Readable && !body.destroyed) body.destroy();
    }
  }

  /** Closes pooled connections; the client cannot be used afterwards. */
  async close(): Promise<void> {
    await this.#dispatcher.close();
  }

  #emit(
    target: RequestTarget,
    query: string,
    status: number | null,
    started: number,
    error: WorkbenchError | null,
  ): void {
    if (!this.#onExchange) return;
    try {
      this.#onExchange({
        method: target.method,
        path: target.path,
        query,
        status,
        durationMs: performance.now() - started,
        error,
      });
    } catch {
      // An observer must not change the outcome of the call it observes.
    }
  }

  [inspect.custom](): string {
    return `Transport { url: '${this.url}', token: ${this.hasToken ? '[redacted]' : 'none'}, timeoutMs: ${this.timeoutMs} }`;
  }

  toJSON(): Record<string, unknown> {
    return { url: this.url, token: this.hasToken ? '[redacted]' : null, timeoutMs: this.timeoutMs };
  }
}

/**
 * The per-request deadline. It aborts with a `TimeoutReason` so the error can say TIMEOUT
 * (and with which value) rather than ABORTED; a caller's signal is forwarded as is.
 */
class Deadline {
  readonly #ctl = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #lastProgress: number | undefined;
  readonly #unlink: () => void;

  constructor(
    private readonly timeoutMs: number,
    outer: AbortSignal | undefined,
    private readonly progress: (() => number) | undefined,
  ) {
    this.#lastProgress = progress?.();
    this.#arm();
    const onAbort = (): void => this.#ctl.abort(outer?.reason ?? new Error('aborted'));
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort, { once: true });
    this.#unlink = () => outer?.removeEventListener('abort', onAbort);
  }

  get signal(): AbortSignal {
    return this.#ctl.signal;
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      const now = this.progress?.();
      if (now !== undefined && now !== this.#lastProgress) {
        this.#lastProgress = now;
        this.#arm();
        return;
      }
      this.#ctl.abort(new TimeoutReason(this.timeoutMs));
    }, this.timeoutMs);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#unlink();
  }
}

function tooLarge(target: RequestTarget, status: number, what: string): WorkbenchProtocolError {
  return new WorkbenchProtocolError(
    `${target.method} ${target.path}: the answer ${what}`,
    target,
    status,
    'RESPONSE_TOO_LARGE',
  );
}

function parseRoot(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new WorkbenchUsageError(
      'INVALID_URL',
      `'${raw}' is not a URL; give the workbench root such as http://localhost:8080`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new WorkbenchUsageError(
      'INVALID_URL',
      `'${raw}' uses ${u.protocol}; the workbench speaks http:// or https://`,
    );
  }
  if (u.username || u.password) {
    throw new WorkbenchUsageError(
      'INVALID_URL',
      'credentials in the URL are not supported; pass the API token as the token option',
    );
  }
  if (u.search || u.hash)
    throw new WorkbenchUsageError('INVALID_URL', `'${u.origin}${u.pathname}' must not carry a query or fragment`);
  // The client adds /api/v1 itself; a root given with the prefix already is accepted as well.
  const path = u.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return new URL(`${u.origin}${path}`);
}

function queryString(entries: Array<[string, QueryValue]> | undefined): string {
  if (!entries) return '';
  // encodeURIComponent rather than URLSearchParams: the latter writes a space as `+`, which
  // not every server decodes in a node name.
  return entries
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v === null ? 'null' : String(v))}`)
    .join('&');
}

function checkTimeout(ms: number, name: string): void {
  if (!Number.isFinite(ms) || ms <= 0 || ms > 2_147_483_647) {
    throw new WorkbenchUsageError('INVALID_ARGUMENT', `${name} must be a positive number of milliseconds, got ${ms}`);
  }
}
