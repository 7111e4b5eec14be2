import type { SeriesCache } from './cache.js';
import { DicomwebError } from './errors.js';
import { resourcePath } from './labels.js';
import { DEFAULT_PAGE_SIZE, search, type SearchContext } from './qido.js';
import { retrieveSeries, type RetrievalContext } from './retrieval.js';
import { store, type StoreInstance } from './stow.js';
import { Transport } from './transport.js';
import type {
  ArchiveOptions,
  Attributes,
  CachedSeries,
  QidoQuery,
  RetryRunner,
  SeriesRef,
  StoreResult,
} from './types.js';

/** Runs an operation once: the default when the caller gives no retry policy. */
const once: RetryRunner = (operation) => operation(1);

/**
 * An archive's DICOMweb service (PS3.18): searches, retrieval of series into a cache, storing.
 * Every HTTP request runs under the caller's retry policy; the archive only classifies its
 * errors. Credentials that would travel in cleartext are refused here, before any connection.
 */
export class Archive {
  readonly label: string;
  private readonly transport: Transport;
  private readonly retry: RetryRunner;
  private readonly searching: SearchContext;
  private readonly retrieving: RetrievalContext;

  constructor(options: ArchiveOptions) {
    this.transport = new Transport(options);
    this.label = this.transport.label;
    this.retry = options.retry ?? once;
    this.searching = { transport: this.transport, retry: this.retry, pageSize: pageSize(options.pageSize) };
    this.retrieving = {
      transport: this.transport,
      retry: this.retry,
      instanceUids: (study, series) => this.instanceUids(study, series),
      plainAccept: false,
    };
  }

  /** QIDO-RS /studies, paged with limit/offset until a page comes back short (or empty). */
  searchStudies(query: QidoQuery, includeFields?: string[]): Promise<Attributes[]> {
    return search(this.searching, resourcePath(), query, includeFields);
  }

  /** QIDO-RS /studies/{study}/series, paged. */
  searchSeries(study: string, query: QidoQuery, includeFields?: string[]): Promise<Attributes[]> {
    return search(this.searching, resourcePath(study, undefined, undefined, 'series'), query, includeFields);
  }

  /** QIDO-RS /studies/{study}/series/{series}/instances, paged. */
  searchInstances(study: string, series: string, includeFields?: string[]): Promise<Attributes[]> {
    return search(this.searching, resourcePath(study, series, undefined, 'instances'), {}, includeFields);
  }

  /** The series complete in the cache, retrieving (WADO-RS) what is missing. */
  retrieveSeries(ref: SeriesRef, cache: SeriesCache): Promise<CachedSeries> {
    return retrieveSeries(this.retrieving, ref, cache);
  }

  /**
   * STOW-RS of part-10 instances into a study; instances already present in the archive (same
   * SOP Instance UID in the same series, found by QIDO-RS) are not sent again.
   */
  store(study: string, instances: StoreInstance[]): Promise<StoreResult> {
    return store(
      { transport: this.transport, retry: this.retry, instanceUids: (s, se) => this.instanceUids(s, se) },
      study,
      instances,
    );
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /** The instances the archive holds in a series; none when it does not know the series (404). */
  private async instanceUids(study: string, series: string): Promise<string[]> {
    let found: Attributes[];
    try {
      found = await this.searchInstances(study, series, ['SOPInstanceUID']);
    } catch (err) {
      if (err instanceof DicomwebError && err.status === 404) return [];
      throw err;
    }
    return found.map((a) => a.SOPInstanceUID).filter((s): s is string => typeof s === 'string' && s !== '');
  }
}

function pageSize(value: number | undefined): number {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`pageSize must be a positive integer, not ${value}`);
  return value;
}
