import { existsSync, readFileSync } from 'node:fs';

interface Manifest {
  name?: string;
  version: string;
}

let root: { dir: URL; manifest: Manifest } | undefined;

/**
 * A file shipped with the package (package.json, schemas/…), by its path from the package's
 * root. The root is found by walking up from this module rather than by a fixed `../..`: the
 * same code runs from src/ (tests), from dist/<folder>/ (the compiled modules) and from
 * dist/bundle/ (the bundled program), each at its own depth.
 */
export function packageFile(path: string): URL {
  root ??= findRoot();
  return new URL(path, root.dir);
}

/** The package's package.json, as read when its root was found. */
export function packageManifest(): Manifest {
  root ??= findRoot();
  return root.manifest;
}

function findRoot(): { dir: URL; manifest: Manifest } {
  let dir = new URL('.', import.meta.url);
  for (;;) {
    const file = new URL('package.json', dir);
    const manifest = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Manifest) : undefined;
    if (manifest?.name === 'wbplay') return { dir, manifest };
    const up = new URL('..', dir);
    if (up.href === dir.href) throw new Error(`wbplay's package.json was not found above ${import.meta.url}`);
    dir = up;
  }
}
