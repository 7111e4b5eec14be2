import { sep as nativeSep } from 'node:path';

/**
 * A path as wbplay writes it into its own files (the resume journal and its hash records): with
 * `/` on every platform, so a folder written on Windows reads the same on Linux and back.
 * Windows takes `C:/out/a.png` as readily as `C:\out\a.png`, so the written form is also the
 * one used to open the file again; `sep` is the platform's separator (tests pass `path.win32.sep`).
 */
export function portablePath(path: string, sep: string = nativeSep): string {
  return sep === '\\' ? path.replace(/\\/g, '/') : path;
}
