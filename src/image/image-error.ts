/**
 * Why an image could not be compared, checked or captured. Codes are stable so the runner can
 * map them to step errors without reading the message; a comparison that ran and found
 * differences is never an error (it is a failed result).
 */
export type CompareErrorCode =
  /** The bytes are not a PNG, or the PNG is damaged. */
  | 'BAD_PNG'
  /** A decoded image whose pixel buffer does not match its size. */
  | 'BAD_IMAGE'
  /** A tolerance, mask or region that cannot be applied. */
  | 'BAD_OPTIONS'
  /** Consecutive captures never became identical before the timeout. */
  | 'CAPTURE_UNSTABLE'
  /** A golden or artefact file could not be read or written. */
  | 'FILE_ERROR';

export class CompareError extends Error {
  constructor(
    readonly code: CompareErrorCode,
    message: string,
    /** What the user can do about it. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CompareError';
  }
}
