import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { defaultCacheRoot } from '../dicomweb/cache-layout.js';
import { archiveLabel } from '../dicomweb/labels.js';
import type { ArchiveRequest } from '../dicomweb/types.js';
import type { ArchiveSearch, ArchiveSeries } from '../compile/foreach-dicomweb.js';
import type { Archives } from '../run/archives.js';
import type { RetryPolicy } from '../run/retry.js';
import type { Config } from './config.js';

export interface ArchiveAccessOptions {
  retry: RetryPolicy;
  /** Send credentials over http:// to a host that is not loopback. */
  allowInsecure?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/**
 * The DICOMweb archives of a command, made when first needed: a playbook without a
 * `dicomweb` source or step never loads the archive client. Credentials come from the
 * environment, by the variable names the configuration gives per archive.
 */
export class ArchiveAccess {
  readonly cacheRoot: string;
  private archives: Promise<Archives> | undefined;
  private trace: WriteStream | undefined;

  constructor(
    private readonly config: Config | undefined,
    private readonly options: ArchiveAccessOptions,
  ) {
    this.cacheRoot = config?.settings.cache ?? defaultCacheRoot(options.env ?? process.env);
  }

  /** The archives, for the run. */
  open(): Promise<Archives> {
    this.archives ??= import('../run/archives.js').then(
      ({ Archives }) =>
        new Archives({
          cacheRoot: this.cacheRoot,
          env: this.options.env ?? process.env,
          ...(this.config?.settings.dicomweb?.archives ? { credentials: this.config.settings.dicomweb.archives } : {}),
          ...(this.options.allowInsecure ? { allowInsecure: true } : {}),
          retry: this.options.retry,
          ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
          ...(this.options.signal ? { signal: this.options.signal } : {}),
          onRequest: (url, request) => this.traced(url, request),
        }),
    );
    return this.archives;
  }

  async search(search: ArchiveSearch): Promise<ArchiveSeries[]> {
    return (await this.open()).search(search);
  }

  /** How far ahead series are fetched, from the configuration. */
  get prefetch(): { ahead?: number; budgetBytes?: number } {
    const d = this.config?.settings.dicomweb;
    return {
      ...(d?.prefetch !== undefined ? { ahead: d.prefetch } : {}),
      ...(d?.prefetch_budget_mb !== undefined ? { budgetBytes: d.prefetch_budget_mb * 1024 * 1024 } : {}),
    };
  }

  /**
   * `--trace`: every exchange with an archive, a JSON line each, as `ArchiveRequest` gives it:
   * no query values, no credentials, UIDs shortened to their hash.
   */
  traceTo(file: string): void {
    mkdirSync(dirname(file), { recursive: true });
    this.trace = createWriteStream(file, { flags: 'a' });
    // A trace that cannot be written is not worth a failed run: it is dropped.
    this.trace.on('error', () => (this.trace = undefined));
  }

  private traced(url: string, request: ArchiveRequest): void {
    this.trace?.write(`${JSON.stringify({ at: new Date().toISOString(), archive: archiveLabel(url), ...request })}\n`);
  }

  async close(): Promise<void> {
    if (this.archives) await (await this.archives).close();
    const trace = this.trace;
    this.trace = undefined;
    if (trace) await new Promise((resolve) => trace.end(resolve));
  }
}
