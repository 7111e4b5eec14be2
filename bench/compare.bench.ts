// Golden comparison end to end: two PNG files in, verdict out, diff written on mismatch. wbplay's
// compareImages against odiff (a native tool, via odiff-bin) on the same files in the same run,
// with a naive pngjs + pixelmatch pipeline for scale. Prints medians and ratios to odiff.
//
// The measurements run in a process of their own (bench/compare-run.ts) on the compiled package,
// as a `wbplay run` compares: run after other benchmarks in one process, the comparison paid for
// what they left behind (a heap grown by a 256 MiB upload, connection pools), and a 1 ms
// operation such as the identical pair measured up to twice as long.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildPackage } from './built.js';
import { ensureOdiff } from './odiff.js';

export default function bench(): Promise<void> {
  buildPackage();
  const bin = ensureOdiff();
  const script = fileURLToPath(new URL('compare-run.ts', import.meta.url));
  execFileSync(process.execPath, ['--import', 'tsx', script, ...(bin ? [bin] : [])], { stdio: 'inherit' });
  return Promise.resolve();
}
