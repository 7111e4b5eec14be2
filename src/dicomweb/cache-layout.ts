import { homedir } from 'node:os';
import { join } from 'node:path';
import { uidHash } from '../volume/dicom/uid-hash.js';

/**
 * Where retrieved series live. Folders are named by hashes of the UIDs, not the UIDs: a path
 * turns up in step descriptions and messages, and a hash names the series without linking it
 * back to the archive's records. Every name can be computed before anything is retrieved, so a
 * case's `path` is known when the playbook compiles.
 */

/** 16 hex digits of the SHA-256 of a UID. */
export function uidDigest(uid: string): string {
  return uidHash(uid, 16);
}

/** `$XDG_CACHE_HOME/wbplay/dicomweb`, else `~/.cache/wbplay/dicomweb`. */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(env.HOME ?? homedir(), '.cache'), 'wbplay', 'dicomweb');
}

/** The folder of a study's series. */
export function studyDir(root: string, study: string): string {
  return join(root, uidDigest(study));
}

/** The folder that holds one series' files and nothing else. */
export function seriesDir(root: string, study: string, series: string): string {
  return join(studyDir(root, study), uidDigest(series));
}

/** The record of a complete series, beside its folder (never in it: the folder is read as DICOM). */
export function manifestPath(root: string, study: string, series: string): string {
  return `${seriesDir(root, study, series)}.json`;
}

/** Files being written; the same file system as the series folders, so a finished file is renamed in. */
export function tempDir(root: string): string {
  return join(root, '.tmp');
}
