/**
 * Why an image could not be read: `UNSUPPORTED_FORMAT` (not a format we read) or
 * `FILE_READ_ERROR` (a format we read, but this file is corrupt, truncated, inconsistent or
 * uses a feature we do not support). Over HTTP both are 422 FILE_READ_ERROR, as MITK answers
 * any file that exists and does not load.
 */
export class ImageReadError extends Error {
  constructor(
    readonly code: 'UNSUPPORTED_FORMAT' | 'FILE_READ_ERROR',
    message: string,
  ) {
    super(message);
    this.name = 'ImageReadError';
  }
}

/** Throws the `FILE_READ_ERROR` every reader uses for a bad file. */
export function unreadable(message: string): never {
  throw new ImageReadError('FILE_READ_ERROR', message);
}
