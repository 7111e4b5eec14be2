/**
 * WADO-RS retrieval of a series into the cache (PS3.18 10.4). One request for the whole series
 * first; whatever it did not deliver (the connection dropped, the body was cut short, a part was
 * no DICOM) is then fetched instance by instance, as listed by QIDO-RS, so a failure costs the
 * instances it lost and not the series. The series counts as complete when the folder holds as
 * many distinct instances as the search reported; only then is its manifest written.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import { instanceFiles, type SeriesCache } from './cache.js';
import { cacheWriteError, DicomwebError } from './errors.js';
import { InstanceWriter, type Tally } from './instance-writer.js';
import { resourcePath, shownPath, uidTag } from './labels.js';
import { readMultipart } from './multipart.js';
import type { Answer, Transport } from './transport.js';
import type { CachedSeries, RetryRunner, SeriesRef } from './types.js';

/** Instances fetched one by one at once: enough to hide a round trip, few enough for any archive. */
const INSTANCE_CONCURRENCY = 4;

export interface RetrievalContext {
  transport: Transport;
  retry: RetryRunner;
  /** The SOP Instance UIDs of a series, by QIDO-RS. */
  instanceUids(study: string, series: string): Promise<string[]>;
  /** Whether the archive refused `transfer-syntax=*` once (then it is not asked again). */
  plainAccept: boolean;
}

const ACCEPT_ANY_SYNTAX = 'multipart/related; type="application/dicom"; transfer-syntax=*';
const ACCEPT_DEFAULT_SYNTAX = 'multipart/related; type="application/dicom"';

export async function retrieveSeries(
  context: RetrievalContext,
  ref: SeriesRef,
  cache: SeriesCache,
): Promise<CachedSeries> {
  const cached = await cache.complete(ref);
  if (cached !== undefined) return cached;
  const dir = cache.seriesDir(ref.study, ref.series);
  try {
    await mkdir(dir, { recursive: true });
    await mkdir(cache.tempDir, { recursive: true });
  } catch (err) {
    throw cacheWriteError(cache.root, err);
  }
  await dropChangedFiles(cache, ref, dir);
  const tally: Tally = { stored: 0 };
  const writer = (): InstanceWriter => new InstanceWriter(cache, ref.series, dir, tally);

  let present = await instanceFiles(dir);
  // A series mostly in the cache already (a file cut short, an interrupted retrieval) is
  // completed instance by instance rather than fetched again whole.
  if (present.size < ref.instances / 2) {
    await fetchWhole(context, ref, writer);
    present = await instanceFiles(dir);
  }
  if (present.size < ref.instances) {
    const listed = await context.instanceUids(ref.study, ref.series);
    const missing = listed.filter((sop) => !present.has(cache.instanceName(sop)));
    await inPool(missing, INSTANCE_CONCURRENCY, (sop) => fetchInstance(context, ref, writer, sop));
    present = await instanceFiles(dir);
  }
  const label = context.transport.label;
  if (present.size < ref.instances)
    throw new DicomwebError(
      'SERIES_INCOMPLETE',
      `the archive ${label} delivered ${present.size} of the ${ref.instances} instances of series ${uidTag(ref.series)} (study ${uidTag(ref.study)})`,
      { retryable: true, hint: 'the archive may still be receiving the series; run again later' },
    );
  const files = Object.fromEntries([...present].sort(([a], [b]) => (a < b ? -1 : 1)));
  try {
    await writeFileAtomic(
      cache.manifestPath(ref.study, ref.series),
      JSON.stringify({ url: label, study: ref.study, series: ref.series, instances: ref.instances, files }),
    );
  } catch (err) {
    throw cacheWriteError(cache.root, err);
  }
  const names = Object.keys(files);
  return {
    dir,
    files: names.map((n) => join(dir, n)),
    bytes: names.reduce((sum, n) => sum + files[n]!, 0),
    fetched: tally.stored > 0,
    fetchedInstances: tally.stored,
  };
}

/**
 * Removes the files an earlier manifest disagrees with (cut short or replaced since) and the
 * manifest itself, which no longer describes the folder. Files no manifest vouches for stay:
 * they were checked when they arrived.
 */
async function dropChangedFiles(cache: SeriesCache, ref: SeriesRef, dir: string): Promise<void> {
  const manifest = await cache.readManifest(ref.study, ref.series);
  if (manifest === undefined) return;
  await rm(cache.manifestPath(ref.study, ref.series), { force: true }).catch(() => undefined);
  for (const [name, size] of await instanceFiles(dir)) {
    const recorded = manifest.files[name];
    if (recorded !== undefined && recorded !== size) await rm(join(dir, name), { force: true });
  }
}

/**
 * The series request. A failure inside the answer (a reset, a body cut short) ends it without
 * an error: what arrived is kept and the rest is fetched instance by instance. A failure before
 * the answer goes to the retry policy; a refusal of `transfer-syntax=*` is asked again without it.
 */
async function fetchWhole(context: RetrievalContext, ref: SeriesRef, writer: () => InstanceWriter): Promise<void> {
  const path = resourcePath(ref.study, ref.series);
  const once = (): Promise<void> =>
    context.retry(async () => {
      let answered = false;
      try {
        await context.transport.send({
          method: 'GET',
          path,
          headers: { accept: context.plainAccept ? ACCEPT_DEFAULT_SYNTAX : ACCEPT_ANY_SYNTAX },
          read: async (answer) => {
            answered = true;
            await readMultipart(answer.body, contentType(answer), writer(), describe(context, path));
          },
        });
      } catch (err) {
        if (answered && err instanceof DicomwebError && err.code !== 'CACHE_WRITE') return;
        throw err;
      }
    });
  try {
    await once();
  } catch (err) {
    if (!(err instanceof DicomwebError)) throw err;
    if (!context.plainAccept && (err.status === 406 || err.status === 400)) {
      context.plainAccept = true;
      return fetchWhole(context, ref, writer);
    }
    if (fatal(err)) throw err;
  }
}

/** Errors that no instance-by-instance retrieval can cure. */
function fatal(err: DicomwebError): boolean {
  if (err.code === 'ARCHIVE_REFUSED' || err.code === 'CACHE_WRITE' || err.code === 'CLEARTEXT_CREDENTIALS') return true;
  // Refused connections, DNS and TLS failures: the next request fares no better.
  return err.code === 'ARCHIVE_UNREACHABLE' && !err.retryable;
}

async function fetchInstance(
  context: RetrievalContext,
  ref: SeriesRef,
  writer: () => InstanceWriter,
  sop: string,
): Promise<void> {
  const path = resourcePath(ref.study, ref.series, sop);
  const answer = await context.retry(async () => {
    const w = writer();
    await context.transport.send({
      method: 'GET',
      path,
      headers: { accept: context.plainAccept ? ACCEPT_DEFAULT_SYNTAX : ACCEPT_ANY_SYNTAX },
      read: (a) => readMultipart(a.body, contentType(a), w, describe(context, path)),
    });
    return w;
  });
  if (!answer.stored.includes(sop) && answer.rejected.includes('not-dicom'))
    throw new DicomwebError(
      'NOT_DICOM',
      `the archive ${context.transport.label} sent something that is not DICOM for instance ${uidTag(sop)} of series ${uidTag(ref.series)}`,
      {
        retryable: false,
        sopInstanceUid: sop,
        hint: 'the instance may be damaged in the archive; ask its administrator',
      },
    );
}

function contentType(answer: Answer): string {
  const value = answer.headers['content-type'];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function describe(context: RetrievalContext, path: ReturnType<typeof resourcePath>): string {
  return `the answer of the archive ${context.transport.label} to GET ${shownPath(path)}`;
}

/** Runs `task` over `items`, `limit` at a time; the first failure stops new tasks and is thrown once the running ones end. */
async function inPool<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}
