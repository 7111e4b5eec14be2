import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import { localPath } from '../files/portable-path.js';
import type { CaseResult, RunResult, StepResult } from '../result/result.js';
import { ReportError } from './report-error.js';

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
 * write, so a request can name a check but never a path. Goldens are named from the project
 * root (`root`), captures from the output folder.
 */
export async function reviewableChecks(result: RunResult, outputDir: string, root: string): Promise<ReviewableCheck[]> {
  const failed = [...result.cases.summaries.entries()].filter(([, c]) => c.status === 'failed').map(([i]) => i);
  const checks: ReviewableCheck[] = [];
  let n = 0;
  for await (const c of result.cases.pick(failed)) {
    const position = failed[n++] as number;
    for (const s of c.steps) {
      const check = reviewableCheck(c, position, s, outputDir, root);
      if (check) checks.push(check);
    }
  }
  return checks;
}

/**
 * A step of the case at `position` as a check to review: a failed `expect_image` that left a
 * capture. Its golden is named from `root`, its capture from the output folder.
 */
export function reviewableCheck(
  c: Pick<CaseResult, 'name' | 'playbook'>,
  position: number,
  s: StepResult,
  outputDir: string,
  root: string,
): ReviewableCheck | undefined {
  const actual = s.artefacts.find((a) => a.kind === 'actual');
  if (s.kind !== 'expect_image' || s.status !== 'failed' || !s.image || !actual) return undefined;
  if (!isAbsolute(s.image.golden)) sameProject(c, root);
  return {
    key: `${position}.${s.index}`,
    caseName: c.name,
    step: s.index,
    golden: localPath(root, s.image.golden),
    actual: localPath(outputDir, actual.path),
  };
}

/**
 * A golden named from the project root is written there only when the root is the project the
 * run was made in: its playbook is found where the report names it. Otherwise (the command run
 * from another folder) the golden would land in the wrong place.
 */
function sameProject(c: Pick<CaseResult, 'playbook'>, root: string): void {
  if (isAbsolute(c.playbook) || existsSync(localPath(root, c.playbook))) return;
  throw new ReportError(
    'OTHER_PROJECT',
    `the report names its playbook ${c.playbook} from the project root, and ${root} has none`,
    "run the command in the project's folder (where wbplay.config.yaml is, or where the run was started)",
  );
}

/** Promotes a check's capture to its golden, written atomically (the capture's own bytes). */
export async function acceptCheck(check: ReviewableCheck): Promise<void> {
  await writeFileAtomic(check.golden, await readFile(check.actual));
}
