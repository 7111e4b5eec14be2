import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { portableLink } from '../files/portable-path.js';
import { readReviewCases } from './review-cases.js';
import { writeReview } from './review-store.js';
import {
  REVIEW_FILE,
  emptyReview,
  readReview,
  type CaseReview,
  type ReviewFile,
  type Verdict,
} from '../result/review-file.js';

/** A case two reviewers gave different verdicts. */
export interface Disagreement {
  case: string;
  said: Array<{ reviewer: string; verdict: Verdict; comment: string }>;
}

/**
 * Two reviewers' files as one. A case only one reviewed keeps that review. A case both gave the
 * same verdict keeps it, with both names, both comments and both sets of tags, and the hashes
 * of the later look. A case they gave different verdicts loses its verdict and records what
 * each said: it is listed, and on the page it is a case without a verdict again, so the next
 * look settles it. Representative when either said so.
 */
export function mergeReviewers(a: ReviewFile, b: ReviewFile): { review: ReviewFile; disagreements: Disagreement[] } {
  const review = emptyReview();
  const disagreements: Disagreement[] = [];
  for (const name of new Set([...Object.keys(a.cases), ...Object.keys(b.cases)])) {
    const x = a.cases[name];
    const y = b.cases[name];
    if (!x || !y) {
      review.cases[name] = (x ?? y)!;
      continue;
    }
    const [early, late] = x.time <= y.time ? [x, y] : [y, x];
    const merged: CaseReview = {
      comment: joinComments(early, late),
      tags: [...new Set([...early.tags, ...late.tags])],
      representative: early.representative || late.representative,
      reviewer: early.reviewer === late.reviewer ? late.reviewer : `${early.reviewer}, ${late.reviewer}`,
      time: late.time,
      captures: late.captures,
    };
    const verdicts = [early, late].filter((r) => r.verdict !== undefined);
    if (verdicts.length === 2 && early.verdict !== late.verdict) {
      const said = [early, late].map((r) => ({ reviewer: r.reviewer, verdict: r.verdict!, comment: r.comment }));
      merged.disagreement = [early, late].map((r) => ({
        reviewer: r.reviewer,
        verdict: r.verdict!,
        comment: r.comment,
        time: r.time,
      }));
      disagreements.push({ case: name, said });
    } else {
      const one = verdicts[verdicts.length - 1];
      if (one) {
        merged.verdict = one.verdict!;
        merged.captures = one.captures;
      }
    }
    review.cases[name] = merged;
  }
  return { review, disagreements };
}

function joinComments(early: CaseReview, late: CaseReview): string {
  if (early.comment === '' || early.comment === late.comment) return late.comment;
  if (late.comment === '') return early.comment;
  return `${early.reviewer}: ${early.comment}\n${late.reviewer}: ${late.comment}`;
}

/**
 * The reviews of the shards of one run, for the merged output folder: each shard's review with
 * its capture paths made relative to `outputDir` (as the merged report names them), then the
 * shards merged as reviewers are. Writes review.json and review.csv into `outputDir` when any
 * shard had a review; returns the files written.
 */
export async function mergeShardReviews(shardDirs: readonly string[], outputDir: string): Promise<string[]> {
  let review: ReviewFile | undefined;
  for (const dir of shardDirs) {
    if (!existsSync(join(dir, REVIEW_FILE))) continue;
    const shard = rebase(await readReview(dir, { mustExist: true }), resolve(dir), resolve(outputDir));
    review = review ? mergeReviewers(review, shard).review : shard;
  }
  if (!review) return [];
  return writeReview(await readReviewCases(outputDir), review);
}

function rebase(review: ReviewFile, from: string, to: string): ReviewFile {
  const cases: Record<string, CaseReview> = {};
  for (const [name, r] of Object.entries(review.cases)) {
    const captures: Record<string, string> = {};
    for (const [path, sha] of Object.entries(r.captures)) captures[portableLink(to, resolve(from, path))] = sha;
    cases[name] = { ...r, captures };
  }
  return { ...review, cases };
}
