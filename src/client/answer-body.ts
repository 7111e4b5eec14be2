import type { Readable } from 'node:stream';

export interface AnswerBody {
  bytes: Buffer;
  /** The body went on past the limit; `bytes` holds its first `limit` bytes and the rest was not read. */
  cut: boolean;
}

/**
 * Reads an answer body, keeping at most `limit` bytes: past that the stream is destroyed (which
 * aborts the exchange), so an endless body costs at most `limit` bytes of memory. Reading is
 * bounded in time by the exchange's own deadline, which aborts this stream.
 */
export async function readAnswerBody(body: Readable, limit: number): Promise<AnswerBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const piece = chunk as Buffer;
    if (size + piece.length > limit) {
      chunks.push(piece.subarray(0, limit - size));
      body.destroy();
      return { bytes: Buffer.concat(chunks, limit), cut: true };
    }
    chunks.push(piece);
    size += piece.length;
  }
  return { bytes: Buffer.concat(chunks, size), cut: false };
}

/** The `Content-Length` an answer announces, or null without one. */
export function declaredLength(value: string | string[] | undefined): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\d+$/.test(v.trim())) return null;
  return Number(v);
}

/** Sizes in messages: `64 MiB`, `320 MiB`, `64 KiB`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
