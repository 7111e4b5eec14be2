import { seriesDir } from '../dicomweb/cache-layout.js';
import type { DicomSeries } from '../volume/dicom/scan.js';
import { casesOfSeries, whereIsValid } from './foreach-dicom.js';
import type {
  ArchiveResults,
  ArchiveSearch,
  ArchiveSeries,
  ForeachContext,
  ForeachRaw,
  Per,
  Study,
} from './foreach-source.js';

export type { ArchiveResults, ArchiveSearch, ArchiveSeries };

/**
 * `foreach: { dicomweb: URL, per, where }`: one case per series (or study) an archive holds.
 *
 * Compiling is synchronous and plain, so the search itself (QIDO-RS, over the network) is not
 * made here: the compile asks for it (`needSearch`) and is run again with the answer
 * (`archives`). A case is named and laid out as `foreach: dicom` names the same series in an
 * export, so a playbook runs unchanged on either; its `path` and `dir` are the series' folder
 * in the cache, where the series will be once retrieved.
 */

/** The same key for the same search, whatever the order of the `where` keys. */
export function searchKey(search: ArchiveSearch): string {
  const where = search.where
    ? Object.keys(search.where)
        .sort()
        .map((k) => [k, search.where![k]])
    : [];
  return JSON.stringify([search.url, search.per, where]);
}

/** The cases of an archive; `pending` while the search is still to be made; undefined after an error. */
export function dicomwebStudies(raw: ForeachRaw, ctx: ForeachContext): Study[] | 'pending' | undefined {
  const url = String(raw.dicomweb);
  const per: Per = raw.per ?? 'series';
  const where = raw.where;
  if (!whereIsValid(where, ctx)) return undefined;
  if (!/^https?:\/\/[^/]/.test(url)) {
    ctx.error(
      'FOREACH_SOURCE',
      ['dicomweb'],
      `\`${url}\` is not an http:// or https:// URL`,
      "give the archive's DICOMweb root, e.g. http://localhost:8042/dicom-web",
    );
    return undefined;
  }
  // Like a file, the archive is read only when files are checked (not by `validate`).
  if (!ctx.checkFiles) return 'pending';
  const search: ArchiveSearch = { url: url.replace(/\/+$/, ''), per, ...(where ? { where } : {}) };
  const found = ctx.archives?.found(search);
  if (found === undefined) {
    ctx.needSearch?.(search);
    return 'pending';
  }
  const root = ctx.archives!.cacheRoot;
  const series: DicomSeries[] = found.map((s) => {
    const dir = seriesDir(root, String(s.keywords.StudyInstanceUID), String(s.keywords.SeriesInstanceUID));
    return { path: dir, dir, files: s.instances, paths: [], keywords: s.keywords };
  });
  if (series.length === 0) {
    ctx.error(
      'FOREACH_SOURCE',
      ['dicomweb'],
      `the archive ${search.url} holds no series${where ? ' the search could narrow to' : ''}`,
      where ? 'check the `where` values, or search the archive in a viewer' : 'push studies into it first',
    );
    return undefined;
  }
  const instances = new Map(found.map((s) => [String(s.keywords.SeriesInstanceUID), s.instances]));
  return casesOfSeries(series, root, search.url, per, where, ctx, (s) => ({
    url: search.url,
    study: String(s.keywords.StudyInstanceUID),
    series: String(s.keywords.SeriesInstanceUID),
    instances: instances.get(String(s.keywords.SeriesInstanceUID)) ?? s.files,
    dir: s.dir,
  }));
}
