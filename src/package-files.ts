import { existsSync, readFileSync } from 'node:fs';

let root: URL | undefined;

/**
 * A file shipped with the package (package.json, schemas/…), by its path from the package's
 * root. The root is found by walking up from this module rather than by a fixed `../..`: the
 * same code runs from src/ (tests), from dist/<folder>/ (the compiled modules) and from
 * dist/bundle/ (the bundled program), each at its own depth.
 */
export function packageFile(path: string): URL {
  root ??= findRoot();
  return new URL(path, root);
}

function findRoot(): URL {
  let dir = new URL('.', import.meta.url);
  for (;;) {
    const manifest = new URL('package.json', dir);
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'wbplay')
      return dir;
    const up = new URL('..', dir);
    if (up.href === dir.href) throw new Error(`wbplay's package.json was not found above ${import.meta.url}`);
    dir = up;
  }
}
