import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { slashes } from './portable-path.js';

export interface HashRecord {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/**
 * SHA-256 of files, remembered by size and modification time so a resumed cohort does not
 * read every data file and output again (the same trade-off make and git make).
 */
export class FileHasher {
  private readonly known = new Map<string, HashRecord>();

  /** Known files by their portable path (`/` everywhere), as the journal writes them. */
  constructor(seed: Record<string, HashRecord> = {}) {
    for (const [path, record] of Object.entries(seed)) this.known.set(slashes(path), record);
  }

  /**
   * The hash of a file, or undefined when it does not exist or cannot be read. A folder (a DICOM series given as
   * its folder) hashes as the names and hashes of the files directly in it, which is what a
   * workbench reads of a folder.
   */
  async hash(path: string): Promise<string | undefined> {
    let st;
    try {
      st = await stat(path);
    } catch {
      return undefined;
    }
    if (st.isDirectory()) return this.hashFolder(path);
    const cached = this.known.get(slashes(path));
    if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs) return cached.sha256;
    // A file that cannot be read (no permission) is as good as missing here; the step that
    // reads it says what is wrong, where a rejected hash would have taken the run down.
    const sha256 = await hashStream(path).catch(() => undefined);
    if (sha256 === undefined) return undefined;
    this.known.set(slashes(path), { size: st.size, mtimeMs: st.mtimeMs, sha256 });
    return sha256;
  }

  private async hashFolder(dir: string): Promise<string> {
    const entries = await readdir(dir, { withFileTypes: true });
    const h = createHash('sha256');
    for (const name of entries
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort()) {
      h.update(`${name}\0${(await this.hash(join(dir, name))) ?? 'missing'}\n`);
    }
    return h.digest('hex');
  }

  /** Records the hash of bytes just written to `path`, so it is not read back. */
  async remember(path: string, bytes: Uint8Array): Promise<string> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const st = await stat(path);
    this.known.set(slashes(path), { size: st.size, mtimeMs: st.mtimeMs, sha256 });
    return sha256;
  }

  /** Drops what is known of files no one will ask about again (a finished study's outputs). */
  forget(paths: Iterable<string>): void {
    for (const path of paths) this.known.delete(slashes(path));
  }

  /** What is known of one file, if it was hashed. */
  recordOf(path: string): HashRecord | undefined {
    return this.known.get(slashes(path));
  }

  snapshot(): Record<string, HashRecord> {
    return Object.fromEntries(this.known);
  }
}

function hashStream(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => h.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}
