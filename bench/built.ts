import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type * as Wbplay from '../src/index.js';

/**
 * The public API from the compiled package, rebuilt first so it matches the source. Benchmarks
 * of per-call overhead use it: what users run is dist/, not source transformed on the fly.
 */
export async function builtPackage(): Promise<typeof Wbplay> {
  buildPackage();
  return (await import(new URL('../dist/index.js', import.meta.url).href)) as typeof Wbplay;
}

/** Compiles src/ into dist/ (what `npm run build` does); type errors end the benchmark. */
export function buildPackage(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json'],
    { cwd: root, stdio: 'inherit' },
  );
}
