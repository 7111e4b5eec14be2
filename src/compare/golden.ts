import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import { compareImages, type CompareOptions, type Comparison } from './compare-images.js';
import { CompareError } from '../image/image-error.js';

/** `--update-goldens`: which goldens a run may (re)write. */
export type UpdateMode = 'none' | 'missing' | 'changed' | 'all';

export interface GoldenCheck {
  /** The fresh capture, PNG bytes. */
  actualPng: Uint8Array;
  goldenPath: string;
  /** Where `<name>-expected.png`, `<name>-actual.png` and `<name>-diff.png` go on failure. */
  outputDir: string;
  name: string;
  options?: CompareOptions;
  update: UpdateMode;
  /** The runner passes `Boolean(process.env.CI)`: in CI a missing golden is a failure, never a new file. */
  ci: boolean;
}

export interface GoldenOutcome {
  status: 'passed' | 'failed' | 'written' | 'updated';
  comparison?: Comparison;
  /** Files written for this check (absolute or as given). */
  artefacts: { expected?: string; actual?: string; diff?: string };
  /** A line for the user when a golden was written or updated, or why a missing one failed. */
  notice?: string;
}

/**
 * Read in one call rather than through the thread pool: an asynchronous read waits for the pool
 * four times (open, stat, read, close), which on a busy machine cost a passing check several
 * times its comparison; a golden from the page cache takes a fraction of a millisecond to copy.
 */
function readGolden(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CompareError(
      'FILE_ERROR',
      `cannot read the golden ${path}: ${(error as Error).message}`,
      'check the file permissions of the goldens folder',
    );
  }
}

async function write(path: string, bytes: Uint8Array): Promise<void> {
  try {
    await writeFileAtomic(path, bytes);
  } catch (error) {
    throw new CompareError(
      'FILE_ERROR',
      `cannot write ${path}: ${(error as Error).message}`,
      'check that the folder is writable and the disk is not full',
    );
  }
}

/**
 * Checks a capture against its golden and applies the update rules: a missing golden fails in
 * CI, and elsewhere is written (with a notice) unless updates are off; `changed` rewrites failing
 * goldens, `all` rewrites every one; a golden whose comparison passed is never rewritten
 * otherwise. Every write is atomic, so an interrupted run never leaves a truncated golden.
 */
export async function checkGolden(check: GoldenCheck): Promise<GoldenOutcome> {
  const { actualPng, goldenPath, outputDir, name, update, ci } = check;
  const golden = readGolden(goldenPath);

  if (golden === undefined) {
    if (ci && update !== 'all' && update !== 'missing') {
      const actual = join(outputDir, `${name}-actual.png`);
      await write(actual, actualPng);
      return {
        status: 'failed',
        artefacts: { actual },
        notice: `golden ${goldenPath} is missing; in CI it is never recorded implicitly. Record it locally and commit it, or run with --update-goldens=missing`,
      };
    }
    if (update === 'none') {
      const actual = join(outputDir, `${name}-actual.png`);
      await write(actual, actualPng);
      return {
        status: 'failed',
        artefacts: { actual },
        notice: `golden ${goldenPath} is missing and --update-goldens=none; the capture is in ${actual}`,
      };
    }
    await write(goldenPath, actualPng);
    return {
      status: 'written',
      artefacts: {},
      notice: `golden ${goldenPath} was missing and has been written from this capture; review and commit it`,
    };
  }

  let comparison: Comparison;
  try {
    comparison = await compareImages(actualPng, golden, check.options);
  } catch (error) {
    if (!(error instanceof CompareError) || error.code !== 'BAD_PNG' || !/expected image/.test(error.message))
      throw error;
    // A damaged golden is replaced only when every golden is being rewritten.
    if (update === 'all') {
      await write(goldenPath, actualPng);
      return {
        status: 'updated',
        artefacts: {},
        notice: `golden ${goldenPath} was not a readable PNG and has been rewritten`,
      };
    }
    throw new CompareError(
      'BAD_PNG',
      `golden ${goldenPath}: ${error.message}`,
      'restore it from version control, or delete it and record it again with --update-goldens=missing',
    );
  }
  const rewrite = update === 'all' || (update === 'changed' && !comparison.pass);
  if (rewrite) {
    // `all` rewrites even byte-identical goldens only when the bytes differ; an equal file is left untouched.
    if (comparison.kind !== 'identical' || !Buffer.from(golden).equals(actualPng)) await write(goldenPath, actualPng);
    return {
      status: 'updated',
      comparison,
      artefacts: {},
      notice: `golden ${goldenPath} updated (${comparison.message})`,
    };
  }
  if (comparison.pass) return { status: 'passed', comparison, artefacts: {} };

  const artefacts = {
    expected: join(outputDir, `${name}-expected.png`),
    actual: join(outputDir, `${name}-actual.png`),
    ...(comparison.diff instanceof Uint8Array ? { diff: join(outputDir, `${name}-diff.png`) } : {}),
  };
  await Promise.all([
    write(artefacts.expected, golden),
    write(artefacts.actual, actualPng),
    ...(artefacts.diff && comparison.diff instanceof Uint8Array ? [write(artefacts.diff, comparison.diff)] : []),
  ]);
  return { status: 'failed', comparison, artefacts };
}
