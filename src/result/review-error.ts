/**
 * Why a review could not be read, written or merged: a stable code for scripts and tests, a
 * message that names the file, a hint saying what to do.
 */
export type ReviewErrorCode =
  /** A review file that is not JSON, or not a review wbplay wrote. */
  | 'REVIEW_INVALID'
  /** A review file named for merging that does not exist. */
  | 'REVIEW_NOT_FOUND'
  /** A review written by a wbplay whose review shape this one does not read. */
  | 'REVIEW_VERSION';

export class ReviewError extends Error {
  constructor(
    readonly code: ReviewErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ReviewError';
  }
}
