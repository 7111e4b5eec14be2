/**
 * Why reports could not be made: a stable code for scripts and tests, a message saying what
 * is wrong and where, a hint saying what to do.
 */
export type ReportErrorCode =
  /** `--reporter` named a reporter that does not exist. */
  | 'UNKNOWN_REPORTER'
  /** A shard folder has no `report.json`, or it cannot be read. */
  | 'REPORT_NOT_FOUND'
  /** A `report.json` that is not JSON or not a run result. */
  | 'REPORT_INVALID'
  /** A `report.json` written by a wbplay whose result shape this one does not read. */
  | 'REPORT_VERSION'
  /** Shards that cannot belong to one run (the same case in two of them). */
  | 'SHARDS_OVERLAP'
  /** Shards of one run of which some have no report among those given. */
  | 'SHARDS_MISSING'
  /** Nothing to merge. */
  | 'NO_REPORTS'
  /** A report whose files are named from another project's root than the one it is read in. */
  | 'OTHER_PROJECT';

export class ReportError extends Error {
  constructor(
    readonly code: ReportErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ReportError';
  }
}
