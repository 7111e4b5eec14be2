import { STATUS_CODES } from 'node:http';
import { errors } from 'undici';
import { WorkbenchApiError, WorkbenchNetworkError, type NetworkErrorCode, type RequestTarget } from './errors.js';

/** Keys of the workbench's problem object that have their own field on the error. */
const STANDARD_KEYS = new Set(['type', 'code', 'title', 'message', 'status', 'instance', 'retry_after']);

/** How much of a non-JSON error body is kept as the message (an HTML page can be long). */
const TEXT_LIMIT = 200;

export type HeaderValue = string | string[] | undefined;

/**
 * Turns a non-2xx answer into a `WorkbenchApiError`. The workbench wraps its problem object
 * in `{"error": {...}}`; a plain RFC 7807 object at the top level is accepted too, and an
 * answer without a JSON problem (bare 404, 413 from the HTTP layer, a proxy's HTML page)
 * gets the synthetic code `HTTP_<status>`. The HTTP status wins over `error.status` (the
 * server's NO_DATA builder writes 404 into a 422 answer).
 */
export function apiErrorFrom(
  status: number,
  headers: Record<string, HeaderValue>,
  body: Uint8Array,
  target: RequestTarget,
  nowMs = Date.now(),
): WorkbenchApiError {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const problem = problemObject(text);
  const fallbackTitle = STATUS_CODES[status] ?? `HTTP ${status}`;
  const headerRetry = retryAfterMs(first(headers['retry-after']), nowMs);
  if (!problem) {
    const snippet = text.trim().slice(0, TEXT_LIMIT);
    return new WorkbenchApiError({
      ...target,
      status,
      code: `HTTP_${status}`,
      title: fallbackTitle,
      message:
        snippet.length > 0
          ? snippet
          : `${target.method} ${target.path} answered ${status} ${fallbackTitle} without a problem body`,
      instance: null,
      type: null,
      retryAfterMs: headerRetry,
      extra: {},
    });
  }
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(problem)) if (!STANDARD_KEYS.has(k)) extra[k] = v;
  const bodyRetry =
    typeof problem.retry_after === 'number' && problem.retry_after >= 0 ? problem.retry_after * 1000 : null;
  return new WorkbenchApiError({
    ...target,
    status,
    code: str(problem.code) ?? `HTTP_${status}`,
    title: str(problem.title) ?? fallbackTitle,
    message: str(problem.message) ?? str(problem.detail) ?? str(problem.title) ?? fallbackTitle,
    instance: str(problem.instance),
    type: str(problem.type),
    retryAfterMs: headerRetry ?? bodyRetry,
    extra,
  });
}

function problemObject(text: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  if (isRecord(parsed.error)) return parsed.error;
  return typeof parsed.code === 'string' ? parsed : null;
}

/** `Retry-After` is either delay seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Why a request was cancelled by the client itself; kept as the abort reason. */
export class TimeoutReason extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

const BY_ERRNO: Record<string, NetworkErrorCode> = {
  ECONNREFUSED: 'CONNECTION_REFUSED',
  ECONNRESET: 'CONNECTION_RESET',
  EPIPE: 'CONNECTION_RESET',
  UND_ERR_SOCKET: 'CONNECTION_RESET',
  UND_ERR_CLOSED: 'CONNECTION_RESET',
  ENOTFOUND: 'DNS_FAILURE',
  EAI_AGAIN: 'DNS_FAILURE',
  EAI_FAIL: 'DNS_FAILURE',
  ETIMEDOUT: 'TIMEOUT',
  UND_ERR_CONNECT_TIMEOUT: 'TIMEOUT',
  UND_ERR_HEADERS_TIMEOUT: 'TIMEOUT',
  UND_ERR_BODY_TIMEOUT: 'TIMEOUT',
  UND_ERR_PRX_TLS: 'PROXY_FAILURE',
  UND_ERR_HEADERS_OVERFLOW: 'MALFORMED_ANSWER',
};

const HINTS: Record<NetworkErrorCode, string> = {
  CONNECTION_REFUSED: 'nothing listens there; is the workbench running with its REST server enabled on that port?',
  CONNECTION_RESET:
    'the connection was closed before the answer was complete; the workbench may have stopped or restarted',
  DNS_FAILURE: 'the host name could not be resolved; check the URL',
  TIMEOUT: 'no answer in time; the workbench may be busy, or raise the timeout',
  ABORTED: 'the call was cancelled by its AbortSignal',
  TLS_FAILURE: 'the TLS handshake failed; check the certificate and that the URL scheme matches the server',
  PROXY_FAILURE: 'the proxy refused or failed the request; check HTTP_PROXY/HTTPS_PROXY/NO_PROXY',
  MALFORMED_ANSWER:
    'the answer is not readable HTTP (a broken status line, or headers that never end); is something other than the workbench listening there?',
  NETWORK_ERROR: 'the request failed before an answer arrived',
};

/** Maps what undici or the socket layer threw to a stable code; never reads message text. */
export function networkErrorFrom(
  err: unknown,
  target: RequestTarget,
  signal: AbortSignal,
  url: string,
): WorkbenchNetworkError {
  let code: NetworkErrorCode;
  if (signal.aborted) code = signal.reason instanceof TimeoutReason ? 'TIMEOUT' : 'ABORTED';
  else code = codeOf(err) ?? 'NETWORK_ERROR';
  const timeout = signal.reason instanceof TimeoutReason ? ` after ${signal.reason.timeoutMs} ms` : '';
  return new WorkbenchNetworkError(
    code,
    `${target.method} ${url}: ${code}${code === 'TIMEOUT' ? timeout : ''}: ${HINTS[code]}`,
    target,
    err,
  );
}

function codeOf(err: unknown, depth = 0): NetworkErrorCode | null {
  if (!isRecord(err) || depth > 4) return null;
  if (err instanceof errors.HTTPParserError) return 'MALFORMED_ANSWER';
  const c = typeof err.code === 'string' ? err.code : '';
  if (c in BY_ERRNO) return BY_ERRNO[c] ?? null;
  if (c.startsWith('ERR_TLS') || c.startsWith('CERT_') || c.includes('SELF_SIGNED') || c.startsWith('UNABLE_TO_'))
    return 'TLS_FAILURE';
  // Not aborted by us (checked before): undici aborts a request itself when a proxy refuses a tunnel.
  if (c === 'UND_ERR_ABORTED' || c === 'ABORT_ERR') return 'PROXY_FAILURE';
  // Happy-eyeballs connects report every address's failure in an AggregateError.
  if (Array.isArray(err.errors))
    for (const e of err.errors) {
      const inner = codeOf(e, depth + 1);
      if (inner) return inner;
    }
  return codeOf(err.cause, depth + 1);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

function first(v: HeaderValue): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
