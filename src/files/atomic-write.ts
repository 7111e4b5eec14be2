import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Steps of an atomic write, replaceable so tests can fail one between writing and renaming.
 * Production code never passes them.
 */
export interface AtomicWriteHooks {
  beforeRename?: (tempPath: string) => Promise<void> | void;
  /**
   * Flush the bytes to disk before the rename (default true). Without it the write is still
   * atomic for every reader and survives a killed process; only a power loss can leave an empty
   * file, which a caller that records hashes (the resume journal) detects anyway.
   */
  durable?: boolean;
}

/**
 * Writes a file so that readers see either the old content or the new, never a truncated mix:
 * the bytes go to a temporary file in the same folder (same filesystem, so rename is atomic),
 * are flushed to disk (unless `durable: false`), and the temporary file is renamed over the target. Folders are created
 * as needed; on any failure the temporary file is removed and the target is untouched.
 */
export async function writeFileAtomic(
  path: string,
  content: Uint8Array | string,
  hooks: AtomicWriteHooks = {},
): Promise<void> {
  await writeAtomically(path, (handle) => handle.writeFile(content), hooks);
}

/**
 * `writeFileAtomic` for content made piece by piece (a report of many cases): the pieces are
 * written as they come, in batches, so the whole text is never held at once.
 */
export async function writeChunksAtomic(
  path: string,
  chunks: AsyncIterable<string>,
  hooks: AtomicWriteHooks = {},
): Promise<void> {
  await writeAtomically(
    path,
    async (handle) => {
      let batch: string[] = [];
      let size = 0;
      for await (const chunk of chunks) {
        batch.push(chunk);
        size += chunk.length;
        if (size >= BATCH_CHARS) {
          await handle.write(batch.join(''));
          batch = [];
          size = 0;
        }
      }
      if (batch.length > 0) await handle.write(batch.join(''));
    },
    hooks,
  );
}

/** Few enough writes for speed, small enough that a batch is no memory worth counting. */
const BATCH_CHARS = 1 << 16;

async function writeAtomically(
  path: string,
  write: (handle: FileHandle) => Promise<unknown>,
  hooks: AtomicWriteHooks,
): Promise<void> {
  const dir = dirname(path);
  // A dot name keeps an interrupted write out of globs such as *.png; the random part keeps
  // concurrent writers of the same target apart.
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await inFolder(dir, () => open(temp, 'wx'));
    try {
      await write(handle);
      if (hooks.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await hooks.beforeRename?.(temp);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Folders this process made or found, so a study's several outputs cost one mkdir, not one
 * each. Forgotten in bulk past a bound, so a cohort of any size holds at most that many.
 */
const madeFolders = new Set<string>();
const MADE_FOLDERS_MAX = 4096;

async function makeFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (madeFolders.size >= MADE_FOLDERS_MAX) madeFolders.clear();
  madeFolders.add(dir);
}

/**
 * Runs a file operation in `dir`, making the folder first unless this process already did; a
 * folder removed since then is made again when the operation finds it missing.
 */
export async function inFolder<T>(dir: string, operation: () => Promise<T>): Promise<T> {
  if (!madeFolders.has(dir)) await makeFolder(dir);
  try {
    return await operation();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await makeFolder(dir);
    return operation();
  }
}
