/**
 * Why a DICOM file or folder could not be read. The code is stable (callers and the reference
 * workbench decide on it); the reason is for people and names what was wrong with the file.
 */
export type DicomErrorCode =
  | 'NOT_DICOM'
  | 'TRUNCATED'
  | 'CORRUPT'
  | 'UNSUPPORTED_TRANSFER_SYNTAX'
  | 'UNSUPPORTED_PIXEL_DATA'
  | 'NO_IMAGE'
  | 'READ_ERROR';

export class DicomReadError extends Error {
  constructor(
    readonly code: DicomErrorCode,
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'DicomReadError';
  }
}

/** Throws the error for `file`; a helper so that readers stay one line per check. */
export function fail(code: DicomErrorCode, file: string, reason: string): never {
  throw new DicomReadError(code, file, reason);
}
