import { createHash } from 'node:crypto';

/** The first `length` hex digits of the SHA-256 of a UID: stable everywhere, and it names no one. */
export function uidHash(uid: string, length = 10): string {
  return createHash('sha256').update(uid).digest('hex').slice(0, length);
}
