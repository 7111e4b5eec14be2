import pRetry from 'p-retry';
import type { ErrorInfo } from '../result/result.js';

/**
 * The one retry policy of a run. Transient trouble (a dropped connection, a workbench that
 * is busy or rate-limiting) is retried with exponential backoff and jitter; everything that
 * would fail the same way again (other 4xx, a failed assertion) is not.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  factor: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, minDelayMs: 200, maxDelayMs: 5000, factor: 2 };

/** HTTP statuses that mean "try again later". */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/** How an error is seen by the policy; the runner maps client errors to this. */
export interface Classified {
  retryable: boolean;
  /** The server asked to wait this long (Retry-After). */
  retryAfterMs?: number;
  info: ErrorInfo;
}

export function retryableStatus(status: number): boolean {
  return RETRY_STATUSES.has(status);
}

export interface RetryHooks {
  classify(err: unknown): Classified;
  /** Called for every failed attempt that will be retried, with the delay before the next. */
  onRetry?(attempt: number, info: ErrorInfo, delayMs: number): void;
  signal?: AbortSignal;
}

/**
 * Runs `fn` under the policy. `fn` receives the attempt number so that a non-idempotent
 * action can check, from the second attempt on, whether the first one already took effect.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  hooks: RetryHooks,
  fn: (attempt: number) => Promise<T>,
): Promise<T> {
  let first: unknown;
  try {
    return await fn(1);
  } catch (err) {
    first = err;
  }
  // Almost every step succeeds at once, and setting p-retry up costs about as much as a cheap
  // step: it is entered only after a failure, which it then handles as its own first attempt.
  return pRetry((attempt) => (attempt === 1 ? Promise.reject(first) : fn(attempt)), {
    // Every option is given: p-retry fills in missing ones on each call, which costs more than
    // a cheap step itself.
    maxRetryTime: Number.POSITIVE_INFINITY,
    onFailedAttempt: noop,
    shouldConsumeRetry: always,
    retries: policy.retries,
    factor: policy.factor,
    minTimeout: policy.minDelayMs,
    maxTimeout: policy.maxDelayMs,
    randomize: true,
    ...(hooks.signal ? { signal: hooks.signal } : {}),
    shouldRetry: async ({ error, attemptNumber }) => {
      const c = hooks.classify(error);
      if (!c.retryable) return false;
      // p-retry adds its own backoff after this; waiting for Retry-After first means the
      // next attempt never comes before the server said it may.
      const wait = c.retryAfterMs ?? 0;
      hooks.onRetry?.(attemptNumber, c.info, wait + backoffEstimate(policy, attemptNumber));
      if (wait > 0) await sleep(wait, hooks.signal);
      return true;
    },
  });
}

const noop = (): void => undefined;
const always = (): boolean => true;

function backoffEstimate(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.minDelayMs * policy.factor ** (attempt - 1));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
