import { Archive, archiveLabel, credentialsFromEnv, DicomwebError, SeriesCache, uidTag } from '../dicomweb/index.js';
import type { StepArchives } from '../steps/run-context.js';
import { searchArchive } from '../dicomweb/search.js';
import type { ArchiveRequest, CachedSeries, StoreResult } from '../dicomweb/types.js';
import type { ArchiveSearch, ArchiveSeries } from '../compile/foreach-dicomweb.js';
import type { RetrieveRef } from '../compile/plan.js';
import { withRetry, type RetryPolicy } from './retry.js';
import { classifyArchive } from './classify.js';

/** Patient and study attributes (by tag) a stored object takes over from its study. */
const STUDY_MODULE = [
  '00100010',
  '00100020',
  '00100030',
  '00100040',
  '00080020',
  '00080030',
  '00080050',
  '00080090',
  '00200010',
  '00081030',
];

/** Where one archive's credentials come from: environment variable names, never values. */
export interface ArchiveCredentialNames {
  token_env?: string;
  user_env?: string;
  password_env?: string;
  allow_insecure_credentials?: boolean;
}

export interface ArchivesOptions {
  cacheRoot: string;
  env: NodeJS.ProcessEnv;
  /** Per archive, by the start of its URL (the longest key that matches wins). */
  credentials?: Readonly<Record<string, ArchiveCredentialNames>>;
  /** Send credentials over http:// to any host (the run's --allow-insecure-token). */
  allowInsecure?: boolean;
  retry: RetryPolicy;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Every exchange, as logs may show it (no query values, UIDs hashed). */
  onRequest?(url: string, request: ArchiveRequest): void;
}

/**
 * The archives a run talks to: one connection per URL with its credentials, under the run's
 * one retry policy, and the cache their series are retrieved into. A series asked for twice at
 * once (prefetch, then its case) is retrieved once.
 */
export class Archives {
  readonly cache: SeriesCache;
  private readonly open = new Map<string, Archive>();
  private readonly retrieving = new Map<string, Promise<CachedSeries>>();

  constructor(private readonly options: ArchivesOptions) {
    this.cache = new SeriesCache(options.cacheRoot);
  }

  get cacheRoot(): string {
    return this.options.cacheRoot;
  }

  archive(url: string): Archive {
    const key = url.replace(/\/+$/, '');
    let archive = this.open.get(key);
    if (!archive) {
      const names = this.namesFor(key);
      const credentials = credentialsFromEnv(this.options.env, names);
      const { retry, signal, timeoutMs, onRequest } = this.options;
      archive = new Archive({
        url: key,
        ...(credentials ? { credentials } : {}),
        allowInsecureCredentials: this.options.allowInsecure === true || names?.allow_insecure_credentials === true,
        retry: (operation) => withRetry(retry, { classify: classifyArchive, ...(signal ? { signal } : {}) }, operation),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(signal ? { signal } : {}),
        ...(onRequest ? { onRequest: (r: ArchiveRequest) => onRequest(key, r) } : {}),
      });
      this.open.set(key, archive);
    }
    return archive;
  }

  private namesFor(url: string): ArchiveCredentialNames | undefined {
    const keys = Object.keys(this.options.credentials ?? {})
      .filter((k) => url.startsWith(k.replace(/\/+$/, '')))
      .sort((a, b) => b.length - a.length);
    return keys[0] !== undefined ? this.options.credentials?.[keys[0]] : undefined;
  }

  /** The series a cohort's search finds (QIDO-RS, paged). */
  async search(search: ArchiveSearch): Promise<ArchiveSeries[]> {
    return searchArchive(this.archive(search.url), search.where, search.per === 'study');
  }

  /** A series complete in the cache: at once when it is there, else retrieved (WADO-RS). */
  retrieve(ref: Pick<RetrieveRef, 'url' | 'study' | 'series' | 'instances'>): Promise<CachedSeries> {
    const key = `${ref.study}\0${ref.series}`;
    let retrieving = this.retrieving.get(key);
    if (!retrieving) {
      retrieving = this.archive(ref.url).retrieveSeries(ref, this.cache);
      this.retrieving.set(key, retrieving);
      // Settled either way: a later call checks the cache again (a failure may be retried).
      const forget = (): void => void this.retrieving.delete(key);
      retrieving.then(forget, forget);
    }
    return retrieving;
  }

  store(
    url: string,
    study: string,
    instances: { sopInstanceUid: string; seriesInstanceUid: string; bytes: Uint8Array }[],
  ): Promise<StoreResult> {
    return this.archive(url).store(study, instances);
  }

  /**
   * A series by its UIDs alone (a `load` of one series): its instance count is asked of the
   * archive first, since completeness is judged by it.
   */
  async retrieveByUid(url: string, study: string, series: string): Promise<CachedSeries> {
    const found = await this.archive(url).searchSeries(study, { SeriesInstanceUID: series }, ['00201209']);
    const match = found.find((s) => s.SeriesInstanceUID === series);
    if (!match)
      throw new DicomwebError(
        'SERIES_INCOMPLETE',
        `the archive ${archiveLabel(url)} holds no series ${uidTag(series)} in study ${uidTag(study)}`,
        {
          hint: 'check the study and series UIDs: the archive may hold them under another study',
        },
      );
    return this.retrieve({ url, study, series, instances: Number(match.NumberOfSeriesRelatedInstances ?? 0) });
  }

  /** The patient and study attributes an object stored into a study takes over. */
  async studyAttributes(url: string, study: string): Promise<Record<string, string | number>> {
    const found = await this.archive(url).searchStudies({ StudyInstanceUID: study }, STUDY_MODULE);
    const match = found.find((s) => s.StudyInstanceUID === study);
    if (!match)
      throw new DicomwebError('ARCHIVE_ERROR', `the archive ${archiveLabel(url)} holds no study ${uidTag(study)}`, {
        hint: 'a result is stored into the study it came from: give that study’s StudyInstanceUID',
      });
    return match;
  }

  /** What steps may ask of these archives. */
  forSteps(): StepArchives {
    return {
      retrieveSeries: (url, study, series) => this.retrieveByUid(url, study, series),
      store: (url, study, instances) => this.store(url, study, instances),
      studyAttributes: (url, study) => this.studyAttributes(url, study),
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((a) => a.close().catch(() => undefined)));
    this.open.clear();
  }
}
