import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import { FileHasher, type HashRecord } from '../files/file-hash.js';

export const MANIFEST_NAME = 'wbplay-manifest.json';

export interface StudyRecord {
  /** Hash of everything the study's result depends on: playbook and includes, data, vars. */
  inputHash: string;
  /** Output files (absolute paths) and their SHA-256. */
  outputs: Record<string, string>;
  finishedAt: string;
}

interface ManifestFile {
  version: 1;
  studies: Record<string, StudyRecord>;
  files: Record<string, HashRecord>;
}

/**
 * The resume state of an output folder. A study is recorded only after all its outputs were
 * written (each atomically), and the manifest itself is replaced atomically after every study,
 * so a run killed at any moment never claims a half-written study.
 */
export class Manifest {
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly studies: Map<string, StudyRecord>,
    readonly hasher: FileHasher,
    /** Set when an unreadable manifest was found and replaced by an empty one. */
    readonly notice?: string,
  ) {}

  static async open(outputDir: string): Promise<Manifest> {
    const path = join(outputDir, MANIFEST_NAME);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return new Manifest(path, new Map(), new FileHasher());
    }
    try {
      const data = JSON.parse(text) as ManifestFile;
      if (data.version !== 1 || typeof data.studies !== 'object') throw new Error('unknown manifest version');
      return new Manifest(path, new Map(Object.entries(data.studies)), new FileHasher(data.files ?? {}));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return new Manifest(path, new Map(), new FileHasher(), `ignored unreadable ${path} (${why}); every study runs again`);
    }
  }

  /** True when the study ran with the same inputs and all its outputs are still as written. */
  async isUpToDate(studyId: string, inputHash: string): Promise<boolean> {
    const record = this.studies.get(studyId);
    if (!record || record.inputHash !== inputHash) return false;
    for (const [path, sha256] of Object.entries(record.outputs)) {
      if ((await this.hasher.hash(path)) !== sha256) return false;
    }
    return true;
  }

  record(studyId: string, record: StudyRecord): Promise<void> {
    this.studies.set(studyId, record);
    return this.flush();
  }

  has(studyId: string): boolean {
    return this.studies.has(studyId);
  }

  private flush(): Promise<void> {
    // Writes are chained so concurrent workers never interleave two renames of older state.
    const next = this.writing.then(() => {
      const data: ManifestFile = {
        version: 1,
        studies: Object.fromEntries([...this.studies].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
        files: this.hasher.snapshot(),
      };
      // Not flushed to disk each time: a killed process loses nothing, and after a power loss
      // a manifest that went back in time only makes finished studies run again.
      return writeFileAtomic(this.path, JSON.stringify(data, null, 1), { durable: false });
    });
    this.writing = next.catch(() => undefined);
    return next;
  }
}
