/**
 * How an archive and a request's path are named where people or other programs see them: an
 * archive by its URL without user info or query (which may carry secrets), the UIDs of a path
 * by their tags (a UID can identify a patient's study).
 */
import { uidTag } from './uid-tag.js';

export { uidTag } from './uid-tag.js';

/** The archive's URL as messages show it: scheme, host, port and path; never user info or query. */
export function archiveLabel(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: still cut what could hold a secret (user info, query, fragment).
    return url.replace(/[?#].*$/s, '').replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${parsed.host}${path}`;
}

/** A path segment and whether it is a UID (to be shown hashed in request records). */
export interface Segment {
  text: string;
  uid?: boolean;
}

/** The path of `/studies/{study}/series/{series}/instances/{sop}` as far as given. */
export function resourcePath(study?: string, series?: string, instance?: string, tail?: string): Segment[] {
  const segments: Segment[] = [{ text: 'studies' }];
  if (study !== undefined) segments.push({ text: study, uid: true });
  if (series !== undefined) segments.push({ text: 'series' }, { text: series, uid: true });
  if (instance !== undefined) segments.push({ text: 'instances' }, { text: instance, uid: true });
  if (tail !== undefined) segments.push({ text: tail });
  return segments;
}

/** The path as sent: every segment percent-encoded. */
export function sentPath(segments: Segment[]): string {
  return segments.map((s) => `/${encodeURIComponent(s.text)}`).join('');
}

/** The path as records and messages show it: UIDs replaced by their tags. */
export function shownPath(segments: Segment[]): string {
  return segments.map((s) => `/${s.uid === true ? uidTag(s.text) : s.text}`).join('');
}
