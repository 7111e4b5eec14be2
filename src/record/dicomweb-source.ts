import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** A series of an archive, as `load: { dicomweb }` names it. */
export interface DicomwebSource {
  url: string;
  study: string;
  series: string;
}

/**
 * The archive series a file of the DICOMweb cache belongs to, from the manifest the cache keeps
 * beside each complete series; undefined for any file outside the cache. A node loaded from
 * the cache is recorded as the archive's series, not as the cache's path: the cache is one
 * machine's copy and may be emptied at any time.
 */
export async function dicomwebSourceOf(file: string, cacheRoot: string): Promise<DicomwebSource | undefined> {
  const inside = relative(cacheRoot, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  const [study, series] = inside.split(sep);
  if (study === undefined || series === undefined) return undefined;
  try {
    const manifest = JSON.parse(await readFile(join(cacheRoot, study, `${series}.json`), 'utf8')) as Record<
      string,
      unknown
    >;
    const { url, study: studyUid, series: seriesUid } = manifest;
    return typeof url === 'string' && typeof studyUid === 'string' && typeof seriesUid === 'string'
      ? { url, study: studyUid, series: seriesUid }
      : undefined;
  } catch {
    return undefined;
  }
}
