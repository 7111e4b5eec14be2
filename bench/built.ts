import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as Wbplay from '../src/index.js';

const root = new URL('..', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  bin: { wbplay: string };
  main: string;
};

/** The `wbplay` command as the package installs it (package.json's bin). */
export const PACKAGE_CLI = fileURLToPath(new URL(manifest.bin.wbplay, root));
/** The package's entry point, what `import 'wbplay'` loads (package.json's main). */
export const PACKAGE_ENTRY = new URL(manifest.main, root).href;

/**
 * The public API from the built package, rebuilt first so it matches the source. Benchmarks
 * of per-call overhead use it: what users run is the build, not source transformed on the fly.
 */
export async function builtPackage(): Promise<typeof Wbplay> {
  buildPackage();
  return (await import(PACKAGE_ENTRY)) as typeof Wbplay;
}

/** Builds the package into dist/ (what `npm run build` does); type errors end the benchmark. */
export function buildPackage(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('scripts/build.mjs', root))], {
    cwd: fileURLToPath(root),
    stdio: 'inherit',
  });
}
