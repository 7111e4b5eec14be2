/**
 * The client's errors. Callers (the runner's retry policy, reporters, users) decide on `code`
 * and `status`, never on message text; every error the client throws extends
 * `WorkbenchError`, so one `instanceof` check separates workbench trouble from bugs.
 */

/** Methods whose repetition has no extra effect; a retry policy may repeat them blindly. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export abstract class WorkbenchError extends Error {
  abstract readonly code: string;

  override toString(): string {
    return `${this.name} [${this.code}]: ${this.message}`;
  }
}

/** What went out, attached to errors of an exchange so a runner can tell which call failed. */
export interface RequestTarget {
  method: string;
  /** Request path including `/api/v1`, without the query string. */
  path: string;
}

export interface ApiErrorFields extends RequestTarget {
  status: number;
  code: string;
  title: string;
  message: string;
  instance: string | null;
  type: string | null;
  retryAfterMs: number | null;
  /** Keys of the server's problem object beyond the standard ones (`available_modes`, `children_count`, ...). */
  extra: Record<string, unknown>;
}

/**
 * A non-2xx answer. `code` is the server's machine code, or `HTTP_<status>` when the answer
 * carried no problem body (a bare 404 of an unknown route, a 413 from the HTTP layer, an HTML
 * page from a proxy).
 */
export class WorkbenchApiError extends WorkbenchError {
  override readonly name = 'WorkbenchApiError';
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly instance: string | null;
  readonly type: string | null;
  readonly retryAfterMs: number | null;
  readonly extra: Record<string, unknown>;
  readonly method: string;
  readonly path: string;

  constructor(f: ApiErrorFields) {
    super(f.message);
    this.code = f.code;
    this.status = f.status;
    this.title = f.title;
    this.instance = f.instance;
    this.type = f.type;
    this.retryAfterMs = f.retryAfterMs;
    this.extra = f.extra;
    this.method = f.method;
    this.path = f.path;
  }

  /** Whether repeating the same request cannot do more than the first one would have. */
  get idempotent(): boolean {
    return IDEMPOTENT.has(this.method);
  }

  override toString(): string {
    return `${this.name} [${this.code} ${this.status}] ${this.method} ${this.path}: ${this.message}`;
  }
}

export type NetworkErrorCode =
  | 'CONNECTION_REFUSED'
  | 'CONNECTION_RESET'
  | 'DNS_FAILURE'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'TLS_FAILURE'
  | 'PROXY_FAILURE'
  /** What came back is not HTTP: an unreadable status line, or headers that never end. */
  | 'MALFORMED_ANSWER'
  | 'NETWORK_ERROR';

/** The exchange did not produce an HTTP answer: nothing reached the server, or the answer was cut off or unreadable. */
export class WorkbenchNetworkError extends WorkbenchError {
  override readonly name = 'WorkbenchNetworkError';
  readonly code: NetworkErrorCode;
  readonly method: string;
  readonly path: string;

  constructor(code: NetworkErrorCode, message: string, target: RequestTarget, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.method = target.method;
    this.path = target.path;
  }

  get idempotent(): boolean {
    return IDEMPOTENT.has(this.method);
  }
}

export type UsageErrorCode =
  | 'INVALID_URL'
  | 'INSECURE_TOKEN'
  | 'INVALID_ARGUMENT'
  | 'INVALID_WINDOW_ID'
  | 'NOT_APPLICABLE'
  | 'CAMERA_CONFLICT'
  | 'EMPTY_PATCH'
  | 'PATH_NOT_ALLOWED'
  | 'FILE_NOT_FOUND'
  | 'STALE_WINDOW'
  | 'NO_EXECUTABLE';

/** The client refused a call before sending it: the server would reject it or it cannot work. */
export class WorkbenchUsageError extends WorkbenchError {
  override readonly name = 'WorkbenchUsageError';
  readonly code: UsageErrorCode;

  constructor(code: UsageErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * `UNEXPECTED_RESPONSE`: the body is not what the API documents (not JSON, the wrong shape,
 * the wrong content type, an image that does not decode). `RESPONSE_TOO_LARGE`: the body is
 * larger than the client keeps for that kind of answer (see limits.ts).
 */
export type ProtocolErrorCode = 'UNEXPECTED_RESPONSE' | 'RESPONSE_TOO_LARGE';

/** A 2xx answer the client cannot use: its body is not what the API documents, or too large. */
export class WorkbenchProtocolError extends WorkbenchError {
  override readonly name = 'WorkbenchProtocolError';
  readonly code: ProtocolErrorCode;
  readonly method: string;
  readonly path: string;
  readonly status: number;

  constructor(message: string, target: RequestTarget, status: number, code: ProtocolErrorCode = 'UNEXPECTED_RESPONSE') {
    super(message);
    this.code = code;
    this.method = target.method;
    this.path = target.path;
    this.status = status;
  }
}

export type LaunchErrorCode = 'EXECUTABLE_NOT_FOUND' | 'EXITED' | 'NOT_READY' | 'NO_FREE_PORT';

/** Starting a workbench failed; `exitCode` and `stderrTail` say how when the process ended. */
export class WorkbenchLaunchError extends WorkbenchError {
  override readonly name = 'WorkbenchLaunchError';
  readonly code: LaunchErrorCode;
  readonly exitCode: number | null;
  readonly stderrTail: string;

  constructor(code: LaunchErrorCode, message: string, exitCode: number | null = null, stderrTail = '') {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
    this.stderrTail = stderrTail;
  }
}
