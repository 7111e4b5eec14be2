/**
 * Where retrieved series live on disk: `<root>/<study hash>/<series hash>/` holds a series' DICOM
 * files and nothing else (so a folder reader can take it whole), each named by the hash of its
 * SOP Instance UID, and `<root>/<study hash>/<series hash>.json` beside it, the manifest, is
 * written only once the series is complete. Names are hashes, so no path shows a UID; parts in
 * transit wait in `<root>/.tmp/`.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { manifestPath, seriesDir, tempDir, uidDigest } from './cache-layout.js';
import type { CachedSeries, SeriesRef } from './types.js';

/** What the manifest of a complete series records. */
export interface Manifest {
  /** The archive it came from (no credentials): `wbplay record` names the series by it. */
  url?: string;
  study: string;
  series: string;
  /** The instance count the series was complete at. */
  instances: number;
  /** Each file's size by name: a file cut short since is found by its size. */
  files: Record<string, number>;
}

const INSTANCE_FILE = /^[0-9a-f]{16}\.dcm$/;

export class SeriesCache {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The folder of a series: `<root>/<first 16 hex of sha256(study)>/<first 16 hex of sha256(series)>`. */
  seriesDir(study: string, series: string): string {
    return seriesDir(this.root, study, series);
  }

  /** The manifest beside the series' folder, never in it. */
  manifestPath(study: string, series: string): string {
    return manifestPath(this.root, study, series);
  }

  /** Where parts are written until they are complete and checked: same filesystem, so a rename moves them. */
  get tempDir(): string {
    return tempDir(this.root);
  }

  /** The file name of an instance in its series' folder. */
  instanceName(sopInstanceUid: string): string {
    return `${uidDigest(sopInstanceUid)}.dcm`;
  }

  async readManifest(study: string, series: string): Promise<Manifest | undefined> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.manifestPath(study, series), 'utf8'));
    } catch {
      return undefined;
    }
    const m = parsed as Partial<Manifest>;
    if (m.study !== study || m.series !== series || typeof m.instances !== 'number') return undefined;
    if (typeof m.files !== 'object' || m.files === null) return undefined;
    return m as Manifest;
  }

  /** The cached series if complete (manifest present, `instances` files, every file's size as recorded), else undefined. */
  async complete(ref: SeriesRef): Promise<CachedSeries | undefined> {
    const manifest = await this.readManifest(ref.study, ref.series);
    if (manifest === undefined || manifest.instances !== ref.instances) return undefined;
    const names = Object.keys(manifest.files).sort();
    if (names.length < ref.instances) return undefined;
    const dir = this.seriesDir(ref.study, ref.series);
    const present = await instanceFiles(dir);
    let bytes = 0;
    for (const name of names) {
      if (present.get(name) !== manifest.files[name]) return undefined;
      bytes += manifest.files[name]!;
    }
    return { dir, files: names.map((n) => join(dir, n)), bytes, fetched: false, fetchedInstances: 0 };
  }

  /** Bytes held by the cache (for the prefetch disk budget). */
  async size(): Promise<number> {
    let bytes = 0;
    await walk(this.root, (_path, size) => (bytes += size));
    return bytes;
  }

  /** Empties the cache (removes the root's contents), returns what it removed. */
  async clean(): Promise<{ files: number; bytes: number }> {
    let files = 0;
    let bytes = 0;
    await walk(this.root, (_path, size) => {
      files++;
      bytes += size;
    });
    const entries = await readdir(this.root).catch(() => [] as string[]);
    await Promise.all(entries.map((e) => rm(join(this.root, e), { recursive: true, force: true })));
    return { files, bytes };
  }
}

/** The instance files of a series' folder by name, with their sizes; none when it does not exist. */
export async function instanceFiles(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((n) => INSTANCE_FILE.test(n))
      .map(async (n) => {
        const s = await stat(join(dir, n)).catch(() => undefined);
        if (s?.isFile() === true) out.set(n, s.size);
      }),
  );
  return out;
}

/** Every file below `dir` with its size; a folder that vanishes meanwhile is skipped. */
async function walk(dir: string, visit: (path: string, size: number) => void): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, visit);
    else if (entry.isFile()) {
      const s = await stat(path).catch(() => undefined);
      if (s !== undefined) visit(path, s.size);
    }
  }
}
