#!/usr/bin/env node
// Builds the package: tsc compiles src/ into <out> (modules and type declarations), then esbuild
// bundles the compiled entry points into <out>/bundle/, which is what the package runs.
//
//   node scripts/build.mjs [out]        (out defaults to dist)
//
// Why a bundle: Node resolves, reads and links every module file on its own, and wbplay is some
// 170 of them. Loading the package's entry point took 240-420 ms of a run's start this way and
// 170-270 ms as a bundle (measured side by side on a 2-core machine); every command a user types
// pays it. Dependencies stay outside the bundle, installed by npm as declared, and modules that
// are imported only when needed stay separate chunks, loaded when needed.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? join(root, 'dist'));

execFileSync(
  process.execPath,
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', out],
  {
    cwd: root,
    stdio: 'inherit',
  },
);

const bundle = join(out, 'bundle');
rmSync(bundle, { recursive: true, force: true });
await build({
  entryPoints: {
    // The names package.json points at (bin, main, exports).
    cli: join(out, 'cli', 'main.js'),
    wbplay: join(out, 'index.js'),
    client: join(out, 'client', 'index.js'),
    // Started by path in a worker thread (sim/embedded.ts looks for it beside its own module).
    'embedded-worker': join(out, 'sim', 'embedded-worker.js'),
    // Started by path in a worker thread (volume/dicom/decode-pool.ts looks for it beside itself).
    'dicom-decode-worker': join(out, 'volume', 'dicom', 'dicom-decode-worker.js'),
  },
  outdir: bundle,
  // One flat folder: a module finds its sibling entry points at './', whichever chunk it lands in.
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
