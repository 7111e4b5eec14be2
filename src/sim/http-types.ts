/**
 * The reference workbench is a pure handler from a request to a response; node:http is only a
 * thin adapter around it, so tests can call the handler directly as well as over a socket.
 */
export interface SimRequest {
  method: string;
  /** Path without the query string, e.g. `/api/v1/info`. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** Remote address of the TCP peer, e.g. `127.0.0.1` or `::ffff:127.0.0.1`. */
  clientIp: string;
}

export interface SimResponse {
  status: number;
  headers: Record<string, string>;
  /** Absent for 204 and bare 404s. */
  body?: Uint8Array | string;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): SimResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

export function noContent(): SimResponse {
  return { status: 204, headers: {} };
}

/** What the real server's HTTP library answers for an unknown route or method: no body. */
export function bareNotFound(): SimResponse {
  return { status: 404, headers: {} };
}
