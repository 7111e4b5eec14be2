import { errors as undiciErrors } from 'undici';
import type { DicomwebErrorCode } from './types.js';

export interface DicomwebErrorOptions {
  /** The HTTP status of the answer, when one arrived. */
  status?: number;
  /** Whether the same request may succeed later (a reset, a timeout, 5xx, 429). */
  retryable?: boolean;
  /** How long the archive asked to wait (its Retry-After), in milliseconds. */
  retryAfterMs?: number;
  /** What the user can do about it. */
  hint?: string;
  /** The instance the error is about. */
  sopInstanceUid?: string;
}

/**
 * An archive's failure as the rest of wbplay decides on it: a stable code, whether a retry can
 * help, and a message naming the archive by its label. No field ever holds a credential: the
 * messages are built from labels, statuses and system error codes, never from request headers.
 */
export class DicomwebError extends Error {
  constructor(
    readonly code: DicomwebErrorCode,
    message: string,
    readonly options?: DicomwebErrorOptions,
  ) {
    super(message);
    this.name = 'DicomwebError';
  }

  get status(): number | undefined {
    return this.options?.status;
  }

  get retryable(): boolean {
    return this.options?.retryable === true;
  }

  get retryAfterMs(): number | undefined {
    return this.options?.retryAfterMs;
  }

  get hint(): string | undefined {
    return this.options?.hint;
  }

  get sopInstanceUid(): string | undefined {
    return this.options?.sopInstanceUid;
  }

  /** The same error, with some options changed (a POST that must not be retried). */
  with(options: DicomwebErrorOptions): DicomwebError {
    return new DicomwebError(this.code, this.message, { ...this.options, ...options });
  }
}

/** Retry-After as milliseconds: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The error of a non-2xx answer. */
export function statusError(label: string, what: string, status: number, retryAfter?: number): DicomwebError {
  if (status === 401 || status === 403)
    return new DicomwebError('ARCHIVE_REFUSED', `the archive ${label} refused the login (${status})`, {
      status,
      retryable: false,
      hint:
        status === 401
          ? 'check the credentials (DICOMWEB_TOKEN, or DICOMWEB_USER and DICOMWEB_PASSWORD)'
          : 'the account lacks the rights for this request; ask the archive administrator',
    });
  const retryable = status >= 500 || status === 429;
  return new DicomwebError('ARCHIVE_ERROR', `the archive ${label} answered ${status} to ${what}`, {
    status,
    retryable,
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    ...(retryable ? { hint: 'the archive is busy or failing; a later run may succeed' } : {}),
  });
}

const REFUSED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const TIMEOUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * The error of a failed exchange with no usable answer, from the system's or undici's code
 * (never from message text, which may quote a URL). Refusals and DNS failures say the address
 * is wrong and are not retried; resets and timeouts are.
 */
export function networkError(label: string, what: string, err: unknown, timeoutMs: number): DicomwebError {
  const code = codeOf(err) ?? 'ERROR';
  const base = `the archive ${label} could not be reached (${what}: ${code})`;
  if (REFUSED.has(code))
    return new DicomwebError('ARCHIVE_UNREACHABLE', base, {
      retryable: false,
      hint: 'nothing listens there; check the URL and that the archive is running',
    });
  if (DNS.has(code))
    return new DicomwebError('ARCHIVE_UNREACHABLE', base, {
      retryable: false,
      hint: 'the host name could not be resolved; check the URL',
    });
  if (TIMEOUT.has(code))
    return new DicomwebError('ARCHIVE_UNREACHABLE', `${base}: no answer within ${timeoutMs} ms`, {
      retryable: true,
      hint: 'the archive is slow or overloaded; raise the timeout or try later',
    });
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('CERT_') ||
    code.includes('SELF_SIGNED') ||
    code.startsWith('UNABLE_TO_')
  )
    return new DicomwebError('ARCHIVE_UNREACHABLE', base, {
      retryable: false,
      hint: "the archive's certificate is not trusted here; name its CA in NODE_EXTRA_CA_CERTS, or check the URL's scheme",
    });
  if (RESET.has(code) || err instanceof undiciErrors.SocketError)
    return new DicomwebError(
      'ARCHIVE_UNREACHABLE',
      `${base}: the connection was closed before the answer was complete`,
      {
        retryable: true,
        hint: 'the archive or a proxy dropped the connection; a retry usually succeeds',
      },
    );
  return new DicomwebError('ARCHIVE_UNREACHABLE', base, { retryable: false });
}

/** Whether an error thrown while reading an answer is the connection's (not the reader's own). */
export function isNetworkFailure(err: unknown): boolean {
  if (err instanceof undiciErrors.UndiciError) return true;
  const code = codeOf(err);
  return code !== undefined && (REFUSED.has(code) || DNS.has(code) || TIMEOUT.has(code) || RESET.has(code));
}

function codeOf(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 4) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && e.code !== '') {
    // undici wraps the socket's own code; the innermost system code says more.
    const inner = codeOf(e.cause, depth + 1);
    return inner !== undefined && e.code === 'UND_ERR_SOCKET' ? inner : e.code;
  }
  // Happy-eyeballs connects report every address's failure in an AggregateError.
  if (Array.isArray(e.errors)) for (const x of e.errors as unknown[]) return codeOf(x, depth + 1);
  return codeOf(e.cause, depth + 1);
}

/** A cache write failure: the path and the system's code, never the temporary file's name alone. */
export function cacheWriteError(path: string, err: unknown): DicomwebError {
  const code = systemCode(err) ?? '';
  const why =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'the disk is full'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EROFS'
          ? 'the filesystem is read-only'
          : 'the write failed';
  return new DicomwebError('CACHE_WRITE', `could not write the cache at ${path}: ${why}${code ? ` (${code})` : ''}`, {
    retryable: false,
    hint:
      code === 'ENOSPC' || code === 'EDQUOT'
        ? 'free some space, lower the prefetch budget, or put the cache on a larger disk'
        : 'check that the cache folder is writable by this user',
  });
}

/** Whether a file-system error is the cache's (a full disk, permissions) rather than a bug. */
export function isWriteFailure(err: unknown): boolean {
  const code = systemCode(err);
  return (
    code !== undefined && ['ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'EIO', 'EMFILE', 'ENFILE'].includes(code)
  );
}

/** The system's code of a file error, also out of the atomic writer's FileWriteError. */
function systemCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { systemCode?: unknown; code?: unknown };
  if (typeof e.systemCode === 'string' && e.systemCode !== '') return e.systemCode;
  return typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code) ? e.code : undefined;
}
