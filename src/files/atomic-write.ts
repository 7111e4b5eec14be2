import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
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
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  // A dot name keeps an interrupted write out of globs such as *.png; the random part keeps
  // concurrent writers of the same target apart.
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(content);
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
