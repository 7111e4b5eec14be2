import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/*
 * The cases a reviewer marked representative, read from the review of an output folder
 * (`review.json`, written by `wbplay review`): `{ "cases": { "<case name>": { "verdict": …,
 * "representative": true, … } } }`. Only the flag is read here; verdicts and comments are the
 * review's own business.
 */

export const REVIEW_FILE = 'review.json';

/** A review that cannot be used to choose cases, with what to do about it. */
export class ReviewFileError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'ReviewFileError';
  }
}

/** The names of the cases marked representative in `outputDir`'s review, in no particular order. */
export async function representativeCases(outputDir: string): Promise<Set<string>> {
  const path = join(outputDir, REVIEW_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new ReviewFileError(
        `\`cases: representative\` reads the review of ${outputDir}, and it has no ${REVIEW_FILE}`,
        `run \`wbplay review ${outputDir}\` first and mark the cases with Representative, or list the cases by name`,
      );
    throw new ReviewFileError(
      `${path} cannot be read: ${(err as Error).message}`,
      'check the file and its permissions',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ReviewFileError(
      `${path} is not JSON: ${(err as Error).message}`,
      'restore it from the review (`wbplay review` writes it) or delete it and review again',
    );
  }
  const cases = (parsed as { cases?: unknown } | null)?.cases;
  if (cases === null || typeof cases !== 'object' || Array.isArray(cases))
    throw new ReviewFileError(
      `${path} has no \`cases\` map of case names to verdicts`,
      'it is not a review written by `wbplay review`; review the output folder again',
    );
  const chosen = new Set<string>();
  for (const [name, entry] of Object.entries(cases as Record<string, unknown>))
    if (entry !== null && typeof entry === 'object' && (entry as { representative?: unknown }).representative === true)
      chosen.add(name);
  return chosen;
}
