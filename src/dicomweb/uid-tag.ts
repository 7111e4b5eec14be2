import { createHash } from 'node:crypto';

/**
 * A UID as logs, traces, reports and messages show it: `uid:` and the first 8 hex digits of its
 * SHA-256. Enough to tell series apart and to find one again; it names no one.
 */
export function uidTag(uid: string): string {
  return `uid:${createHash('sha256').update(uid).digest('hex').slice(0, 8)}`;
}
