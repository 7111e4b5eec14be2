import { CompareError } from '../image/image-error.js';

export interface StableOptions {
  /** Give up after this long (the step's timeout). */
  timeoutMs: number;
  /** Pause between captures. */
  intervalMs: number;
  signal?: AbortSignal;
}

export interface StableCapture {
  bytes: Uint8Array;
  /** How many captures were taken, the last two being identical. */
  captures: number;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

/**
 * Captures until two consecutive captures are byte-identical, so a view still settling (a
 * progressive render, a late reinit) is not compared half-drawn. Bounded by `timeoutMs`; a
 * capture that fails ends the wait with its own error.
 */
export async function captureStable(
  capture: () => Promise<Uint8Array>,
  options: StableOptions,
): Promise<StableCapture> {
  const deadline = Date.now() + options.timeoutMs;
  let last = await capture();
  let captures = 1;
  options.signal?.throwIfAborted();
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new CompareError(
        'CAPTURE_UNSTABLE',
        `the view did not settle: ${captures} consecutive captures within ${options.timeoutMs} ms were all different`,
        'raise the step timeout, or drop `stable: true` if the view keeps changing (an animation, a clock)',
      );
    }
    await pause(Math.min(options.intervalMs, remaining), options.signal);
    const next = await capture();
    options.signal?.throwIfAborted();
    captures++;
    if (sameBytes(last, next)) return { bytes: next, captures };
    last = next;
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
