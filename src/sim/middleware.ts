import { createHash, timingSafeEqual } from 'node:crypto';
import type { SimRequest } from './http-types.js';
import { Problem } from './problem.js';

/**
 * The checks the real server runs before routing, in its order: client IP (403), rate limit
 * (429), bearer token (401). Each throws a `Problem`; the handler turns it into the answer.
 */

const API = '/api/v1';
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** `/health` and `/info` need no token and are not rate limited (the IP check still applies). */
export const isExempt = (path: string): boolean => path === `${API}/health` || path === `${API}/info`;

export function checkClientIp(req: SimRequest, access: 'localhost' | 'all'): void {
  if (access === 'localhost' && !LOOPBACK.has(req.clientIp)) {
    throw new Problem('ACCESS_DENIED', `Client IP ${req.clientIp} is not allowed`);
  }
}

/**
 * A sliding 60-second window of accepted requests per client IP (the TCP peer; forwarded-for
 * headers are ignored, as in the real server). Rejected requests are not counted.
 */
export class RateLimiter {
  private readonly seen = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  check(req: SimRequest): void {
    const now = this.now();
    const times = (this.seen.get(req.clientIp) ?? []).filter((t) => t > now - 60_000);
    this.seen.set(req.clientIp, times);
    if (times.length >= this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((times[0]! + 60_000 - now) / 1000));
      throw new Problem('RATE_LIMIT_EXCEEDED', `Too many requests. Retry after ${retryAfter} seconds.`, {
        extra: { retry_after: retryAfter },
        headers: { 'retry-after': String(retryAfter) },
      });
    }
    times.push(now);
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Bearer-token check with the real server's three messages; the comparison takes constant time. */
export function checkToken(req: SimRequest, token: string): void {
  const header = req.headers['authorization'];
  const refuse = (message: string): never => {
    throw new Problem('UNAUTHORIZED', message, { headers: { 'www-authenticate': 'Bearer' } });
  };
  if (header === undefined) refuse('Authentication required. Provide Authorization: Bearer <token> header.');
  if (!header!.startsWith('Bearer ') || header!.length === 'Bearer '.length)
    refuse('Invalid authorization format. Expected: Bearer <token>');
  if (!timingSafeEqual(digest(header!.slice('Bearer '.length)), digest(token))) refuse('Invalid API token');
}

/** CORS headers of every answer; the origin narrows to http://localhost when a token is required. */
export function corsHeaders(tokenRequired: boolean): Record<string, string> {
  return {
    'access-control-allow-origin': tokenRequired ? 'http://localhost' : '*',
    'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    'access-control-allow-headers': 'Content-Type, Accept, Authorization, X-MITK-Transfer-Mode',
  };
}
