import { uidHash } from '../volume/dicom/uid-hash.js';

/**
 * A UID as logs, traces, reports and messages show it: `uid:` and the first 8 hex digits of its
 * SHA-256. Enough to tell series apart and to find one again; it names no one.
 */
export function uidTag(uid: string): string {
  return `uid:${uidHash(uid, 8)}`;
}
