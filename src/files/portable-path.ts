import * as nodePath from 'node:path';

/** The parts of `node:path` a name needs; `path.win32` or `path.posix` in tests of the other platform. */
export type PathModule = Pick<typeof nodePath, 'relative' | 'resolve' | 'isAbsolute' | 'sep' | 'dirname' | 'basename'>;

/**
 * A file as reports, provenance and written playbooks name it: relative to `base` with `/` on
 * every platform, so the same project gives the same names in any checkout folder and on
 * Windows and Linux alike; absolute (also with `/`) only when the file lies outside `base`.
 * A name that is already relative is taken as relative to `base`.
 */
export function portablePath(base: string, file: string, path: PathModule = nodePath): string {
  const full = path.resolve(base, file);
  const rel = path.relative(path.resolve(base), full);
  const outside = rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  return slashes(outside ? full : rel === '' ? '.' : rel, path);
}

/**
 * A link from one file to another that moves with it (an artefact from its report, a data file
 * from a recorded playbook): relative with `/`, also through `..`; absolute (with `/`) only when
 * no relative path exists (another Windows drive).
 */
export function portableLink(base: string, file: string, path: PathModule = nodePath): string {
  const full = path.resolve(base, file);
  const rel = path.relative(path.resolve(base), full);
  return slashes(path.isAbsolute(rel) ? full : rel === '' ? '.' : rel, path);
}

/** A name written by `portablePath` (on either platform) as a path of this one. */
export function localPath(base: string, name: string, path: PathModule = nodePath): string {
  return path.resolve(base, name);
}

/**
 * A path with `/` on every platform, as wbplay writes paths into its own files (the resume
 * journal and its hash records): Windows opens `C:/out/a.png` as readily as `C:\out\a.png`, so
 * the written form also opens the file again. A backslash in a POSIX name is a character.
 */
export function slashes(p: string, path: Pick<PathModule, 'sep'> = nodePath): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}
