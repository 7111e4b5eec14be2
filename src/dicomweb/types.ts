/**
 * The vocabulary of an archive's DICOMweb interface as the rest of wbplay sees it: what a
 * search returns, what a retrieval leaves in the cache, what a store answers, and the errors.
 */

/** Attributes of a study, series or instance by DICOM keyword, parsed from DICOM JSON (PS3.18 F.2). */
export type Attributes = Record<string, string | number>;

/** A way to log in, resolved from environment variables; never written anywhere. */
export type Credentials = { kind: 'bearer'; token: string } | { kind: 'basic'; user: string; password: string };

/**
 * Runs an operation under the run's one retry policy. The archive classifies its own errors
 * (`DicomwebError.retryable`, `retryAfterMs`); the caller owns the policy (counts, backoff).
 */
export type RetryRunner = <T>(operation: (attempt: number) => Promise<T>) => Promise<T>;

/** One HTTP exchange, for traces and logs: no query values, UIDs shortened to their hash. */
export interface ArchiveRequest {
  method: string;
  /** The path below the archive's root with every UID replaced by `uid:<8 hex digits of its SHA-256>`. */
  path: string;
  /** The names of the query parameters, never their values. */
  query: string[];
  status?: number;
  ms: number;
  /** Body bytes that moved: the request's (STOW-RS) and the answer's as far as it was read. */
  bytes: number;
}

export interface ArchiveOptions {
  /** The DICOMweb root, e.g. `http://127.0.0.1:8042/dicom-web`; no credentials in it. */
  url: string;
  credentials?: Credentials;
  /** Send credentials over plain http:// to a host that is not loopback. */
  allowInsecureCredentials?: boolean;
  /** Default: run once, no retry. */
  retry?: RetryRunner;
  /** Per request, until the headers arrive and between body chunks (default 60 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  onRequest?(request: ArchiveRequest): void;
  /** QIDO-RS page size (default 100). */
  pageSize?: number;
  /**
   * A PEM file of CAs trusted for this archive, beside Node's roots, the system's bundle and
   * NODE_EXTRA_CA_CERTS (an archive behind a hospital's own CA).
   */
  caFile?: string;
}

/** The keywords and values a QIDO-RS search sends as query parameters (already mapped from `where`). */
export type QidoQuery = Record<string, string>;

/** A series to retrieve, as a search found it. */
export interface SeriesRef {
  study: string;
  series: string;
  /** NumberOfSeriesRelatedInstances as QIDO-RS reported it: the series is complete at this count. */
  instances: number;
}

/** A series complete in the cache. */
export interface CachedSeries {
  /** The folder that holds the series' files and nothing else. */
  dir: string;
  /** Its files, absolute, sorted by name. */
  files: string[];
  bytes: number;
  /** Whether anything was fetched now (false: it was complete in the cache already). */
  fetched: boolean;
  /** Instances fetched by this call. */
  fetchedInstances: number;
}

export interface StoreResult {
  /** SOP Instance UIDs the archive took now. */
  stored: string[];
  /** SOP Instance UIDs it already held, which were not sent again. */
  present: string[];
}

export type DicomwebErrorCode =
  /** No connection: refused, DNS, TLS, a timeout before any answer. */
  | 'ARCHIVE_UNREACHABLE'
  /** 401 or 403: never retried. */
  | 'ARCHIVE_REFUSED'
  /** Any other non-2xx answer. */
  | 'ARCHIVE_ERROR'
  /** A body that is not what PS3.18 says (bad JSON, a multipart body cut short or malformed). */
  | 'ARCHIVE_BAD_RESPONSE'
  /** A retrieved part that is not DICOM. */
  | 'NOT_DICOM'
  /** Fewer instances than QIDO-RS reported, after every retry. */
  | 'SERIES_INCOMPLETE'
  /** The cache could not be written (a full disk, permissions); the message names the path. */
  | 'CACHE_WRITE'
  /** Credentials would travel in cleartext to a host that is not loopback. */
  | 'CLEARTEXT_CREDENTIALS'
  /** STOW-RS refused some instances (FailedSOPSequence). */
  | 'STORE_FAILED';
