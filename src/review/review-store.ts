import { join } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { ReviewCases } from './review-cases.js';
import { reviewCsv } from './review-csv.js';
import {
  REVIEW_CSV,
  REVIEW_FILE,
  VERDICTS,
  readReview,
  type CaseReview,
  type ReviewFile,
  type Verdict,
} from '../result/review-file.js';

/** What the page asks to change of one case; absent parts stay as they are. */
export interface ReviewChange {
  verdict?: Verdict | null;
  comment?: string;
  tags?: string[];
  representative?: boolean;
  /** The captures shown when the change was made, by path, with the hashes the page was given. */
  seen: Record<string, string>;
}

/** The longest comment and tag kept: a review is notes, not a document. */
const MAX_COMMENT = 10_000;
const MAX_TAG = 64;
const MAX_TAGS = 32;

/**
 * The review of one output folder while it is served: every change is written at once,
 * review.json and then review.csv, each atomically, one change after another so two quick
 * clicks cannot interleave their writes.
 */
export class ReviewStore {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly review: ReviewFile,
    private readonly cases: ReviewCases,
    private readonly reviewer: string,
  ) {}

  static async open(cases: ReviewCases, reviewer: string): Promise<ReviewStore> {
    return new ReviewStore(await readReview(cases.outputDir), cases, reviewer);
  }

  /** Applies a change to the case named and writes the review; the case's record after it. */
  change(name: string, change: ReviewChange, now = new Date()): Promise<CaseReview> {
    const next = this.queue.then(async () => {
      const was = this.review.cases[name];
      const record: CaseReview = {
        comment: was?.comment ?? '',
        tags: was?.tags ?? [],
        representative: was?.representative ?? false,
        ...(was?.verdict !== undefined ? { verdict: was.verdict } : {}),
        reviewer: this.reviewer,
        time: now.toISOString(),
        // The hashes belong to the verdict: a comment added later does not make an old verdict fresh.
        captures: change.verdict !== undefined || was?.verdict === undefined ? change.seen : was.captures,
      };
      if (change.verdict === null) delete record.verdict;
      else if (change.verdict !== undefined) record.verdict = change.verdict;
      if (change.comment !== undefined) record.comment = change.comment;
      if (change.tags !== undefined) record.tags = change.tags;
      if (change.representative !== undefined) record.representative = change.representative;
      // A verdict given again settles what two reviewers disagreed on.
      if (was?.disagreement && change.verdict === undefined) record.disagreement = was.disagreement;
      this.review.cases[name] = record;
      try {
        await writeReview(this.cases, this.review);
      } catch (error) {
        // What the page is told was not saved is not kept either: the next change writes no more than was asked.
        if (was) this.review.cases[name] = was;
        else delete this.review.cases[name];
        throw error;
      }
      return record;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** review.json and review.csv of an output folder, each written atomically. */
export async function writeReview(cases: ReviewCases, review: ReviewFile): Promise<string[]> {
  const json = join(cases.outputDir, REVIEW_FILE);
  const csv = join(cases.outputDir, REVIEW_CSV);
  await writeFileAtomic(json, `${JSON.stringify(review, null, 2)}\n`);
  await writeFileAtomic(csv, reviewCsv(review, cases.cases, cases.fieldNames));
  return [json, csv];
}

/**
 * A change as the page sent it, checked: what a request may set and nothing else, or a
 * sentence saying what is wrong with it.
 */
export function checkChange(body: unknown, captures: ReadonlySet<string>): ReviewChange | string {
  if (typeof body !== 'object' || body === null) return 'the body must be a JSON object';
  const b = body as Record<string, unknown>;
  const change: ReviewChange = { seen: {} };
  if (b.verdict !== undefined) {
    if (b.verdict !== null && !VERDICTS.includes(b.verdict as Verdict))
      return 'verdict must be pass, fail, unsure or null';
    change.verdict = b.verdict as Verdict | null;
  }
  if (b.comment !== undefined) {
    if (typeof b.comment !== 'string' || b.comment.length > MAX_COMMENT)
      return `comment must be text of at most ${MAX_COMMENT} characters`;
    change.comment = b.comment;
  }
  if (b.tags !== undefined) {
    const tags = Array.isArray(b.tags) ? b.tags : undefined;
    if (
      !tags ||
      tags.length > MAX_TAGS ||
      !tags.every((t) => typeof t === 'string' && t.trim() !== '' && t.length <= MAX_TAG)
    )
      return `tags must be a list of at most ${MAX_TAGS} words of at most ${MAX_TAG} characters`;
    change.tags = [...new Set((tags as string[]).map((t) => t.trim()))];
  }
  if (b.representative !== undefined) {
    if (typeof b.representative !== 'boolean') return 'representative must be true or false';
    change.representative = b.representative;
  }
  const seen = b.seen;
  if (typeof seen !== 'object' || seen === null || Array.isArray(seen)) return 'seen must name the captures shown';
  for (const [path, hash] of Object.entries(seen)) {
    if (!captures.has(path)) return `the case has no capture ${path}`;
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) return `the hash of ${path} is not a SHA-256`;
    change.seen[path] = hash;
  }
  return change;
}
