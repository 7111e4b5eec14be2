import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { RunResult, StepResult } from '../result/result.js';

/** A failed image check of a finished run whose capture may become its golden. */
export interface ReviewableCheck {
  /** `<case position>.<step index>`: how the report page and `accept` name it. */
  key: string;
  caseName: string;
  step: number;
  /** Absolute paths. */
  golden: string;
  actual: string;
}

/**
 * The failed `expect_image` checks of a run that left a capture: the only goldens a review may
 * write, so a request can name a check but never a path.
 */
export async function reviewableChecks(result: RunResult, outputDir: string): Promise<ReviewableCheck[]> {
  const failed = [...result.cases.summaries.entries()].filter(([, c]) => c.status === 'failed').map(([i]) => i);
  const checks: ReviewableCheck[] = [];
  let n = 0;
  for await (const c of result.cases.pick(failed)) {
    const position = failed[n++] as number;
    for (const s of c.steps) {
      const check = reviewableCheck(c.name, position, s, outputDir);
      if (check) checks.push(check);
    }
  }
  return checks;
}

/** A step of the case at `position` as a check to review: a failed `expect_image` that left a capture. */
export function reviewableCheck(
  caseName: string,
  position: number,
  s: StepResult,
  outputDir: string,
): ReviewableCheck | undefined {
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(outputDir, path));
  const actual = s.artefacts.find((a) => a.kind === 'actual');
  if (s.kind !== 'expect_image' || s.status !== 'failed' || !s.image || !actual) return undefined;
  return {
    key: `${position}.${s.index}`,
    caseName,
    step: s.index,
    golden: at(s.image.golden),
    actual: at(actual.path),
  };
}

/** Promotes a check's capture to its golden, written atomically (the capture's own bytes). */
export async function acceptCheck(check: ReviewableCheck): Promise<void> {
  await writeFileAtomic(check.golden, await readFile(check.actual));
}
