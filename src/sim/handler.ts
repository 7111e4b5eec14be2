import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkbenchConfig } from './config.js';
import type { EventLog, WorkbenchEvent } from './event-log.js';
import type { FaultDecision, FaultInjector } from './faults.js';
import { bareNotFound, noContent, type SimRequest, type SimResponse } from './http-types.js';
import { checkClientIp, checkToken, corsHeaders, isExempt, type RateLimiter } from './middleware.js';
import { Problem, problemResponse } from './problem.js';
import type { Router } from './router.js';

/**
 * An answer, or an instruction to the socket layer: `drop` closes the connection without an
 * answer, `stall` never answers. Both come only from injected faults.
 */
export interface HandledResponse extends SimResponse {
  abort?: 'drop' | 'stall';
}

/** What only the socket layer knows about a request. */
export interface TransportInfo {
  /** The body was (or would have been) larger than the payload limit and was not read. */
  bodyTooLarge?: boolean;
  /** The framing gives no way to find the end of the body (a transfer coding other than chunked last). */
  bodyLengthUnknown?: boolean;
}

export interface HandlerContext {
  config: WorkbenchConfig;
  router: Router;
  faults: FaultInjector;
  rateLimiter: RateLimiter | undefined;
  events: EventLog;
  now: () => number;
}

export type Handle = (req: SimRequest, transport?: TransportInfo) => Promise<HandledResponse>;

/**
 * The whole request pipeline without sockets: injected faults, then the real server's checks in
 * its order (client IP, rate limit, token), then the route. Never throws: anything unexpected
 * becomes a 500 INTERNAL_ERROR without internals in the body.
 */
export function createHandler(ctx: HandlerContext): Handle {
  const cors = corsHeaders(ctx.config.token !== undefined);
  return async (req, transport = {}) => {
    const started = ctx.now();
    const fault: FaultDecision = ctx.faults.active ? ctx.faults.decide(req.method, req.path) : { latencyMs: 0 };
    if (fault.latencyMs > 0) await sleep(fault.latencyMs);
    let res: HandledResponse;
    let error: string | undefined;
    if (fault.kind === 'drop-before') res = { status: 0, headers: {}, abort: 'drop' };
    else if (fault.kind === 'stall') res = { status: 0, headers: {}, abort: 'stall' };
    else if (fault.kind === '503') {
      res = problemResponse(
        new Problem('SERVICE_UNAVAILABLE', 'Injected fault: the service is temporarily unavailable'),
        req.path,
      );
    } else if (fault.kind === '429') {
      const seconds = fault.retryAfter ?? 1;
      res = problemResponse(
        new Problem('RATE_LIMIT_EXCEEDED', `Too many requests. Retry after ${seconds} seconds.`, {
          extra: { retry_after: seconds },
          headers: { 'retry-after': String(seconds) },
        }),
        req.path,
      );
    } else {
      try {
        res = await respond(ctx, req, transport);
      } catch (err) {
        error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        res = problemResponse(
          new Problem('INTERNAL_ERROR', 'An unexpected error occurred while handling the request'),
          req.path,
        );
      }
      if (fault.kind === 'drop-after') res = { ...res, abort: 'drop' };
    }
    res.headers = { ...cors, ...res.headers };
    const event: WorkbenchEvent = {
      time: new Date(started).toISOString(),
      method: req.method,
      path: req.path,
      status: res.abort ? null : res.status,
      ms: Math.max(0, ctx.now() - started),
    };
    if (fault.kind) event.fault = fault.kind;
    if (fault.latencyMs > 0) event.latency_ms = fault.latencyMs;
    if (error !== undefined) event.error = error;
    const transfer = uploadTransfer(req);
    if (transfer !== undefined) event.transfer = transfer;
    ctx.events.record(event);
    return res;
  };
}

/**
 * How a request that sends node data sends it, told from the request alone (the routes need not
 * report it): raw bytes, or JSON naming a file. A client's choice between the two is what a test
 * of a workbench on another machine looks for.
 */
function uploadTransfer(req: SimRequest): WorkbenchEvent['transfer'] {
  if (
    (req.method !== 'POST' && req.method !== 'PUT') ||
    !/\/datastorage\/nodes(\/[^/]+\/(children|data))?$/.test(req.path)
  )
    return undefined;
  if (!(req.headers['content-type'] ?? '').includes('json')) return req.body.length > 0 ? 'direct' : undefined;
  return Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength).includes('"file_path"')
    ? 'file-reference'
    : undefined;
}

async function respond(ctx: HandlerContext, req: SimRequest, transport: TransportInfo): Promise<SimResponse> {
  try {
    checkClientIp(req, ctx.config.clientAccess);
    const exempt = isExempt(req.path);
    if (!exempt) ctx.rateLimiter?.check(req);
    if (!exempt && ctx.config.token !== undefined) checkToken(req, ctx.config.token);
    if (transport.bodyLengthUnknown) {
      throw new Problem(
        'INVALID_REQUEST',
        `Transfer-Encoding '${(req.headers['transfer-encoding'] ?? '').slice(0, 80)}' does not end in chunked, so the end of the request body cannot be found`,
      );
    }
    if (req.method === 'OPTIONS') return noContent();
    // The real server's HTTP library refuses an over-size body with a bare 413 before routing.
    if (transport.bodyTooLarge || req.body.length > ctx.config.maxPayloadBytes) return { status: 413, headers: {} };
    const match = ctx.router.match(req.method, req.path);
    if (!match) return bareNotFound();
    return await match.handler(req, match.params);
  } catch (err) {
    if (err instanceof Problem) return problemResponse(err, req.path);
    throw err;
  }
}
