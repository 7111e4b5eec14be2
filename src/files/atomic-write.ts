import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FileWriteError } from './write-error.js';

export { FileWriteError } from './write-error.js';

/**
 * Steps of an atomic write, replaceable so tests can fail one between writing and renaming.
 * Production code never passes them.
 */
export interface AtomicWriteHooks {
  beforeRename?: (tempPath: string) => Promise<void> | void;
  /**
   * Flush the bytes to disk before the rename (default true), so a file under its final name
   * always holds its whole content, also after a power loss. Without it the write is still
   * atomic for every reader and survives a killed process.
   */
  durable?: boolean;
}

/**
 * Writes a file so that readers see either the old content or the new, never a truncated mix:
 * the bytes go to a temporary file in the same folder (same filesystem, so rename is atomic),
 * are flushed to disk (unless `durable: false`), and the temporary file is renamed over the
 * target. Folders are created as needed; on any failure the temporary file is removed, the
 * target is untouched, and a FileWriteError names the target and the system's reason.
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

/** Unique to this process (a pid alone repeats across containers sharing a folder). */
const TEMP_TAG = `${process.pid}-${randomBytes(4).toString('hex')}`;
let tempCount = 0;

/** Few enough writes for speed, small enough that a batch is no memory worth counting. */
const BATCH_CHARS = 1 << 16;

async function writeAtomically(
  path: string,
  write: (handle: FileHandle) => Promise<unknown>,
  hooks: AtomicWriteHooks,
): Promise<void> {
  const dir = dirname(path);
  // A dot name keeps an interrupted write out of globs such as *.png; the process's random tag
  // and a counter keep concurrent writers of the same target apart, in this process and others.
  const temp = join(dir, `.${basename(path)}.${TEMP_TAG}.${(tempCount++).toString(36)}.tmp`);
  let madeTemp = false;
  try {
    injectedFault(path);
    const handle = await inFolder(dir, () => open(temp, 'wx'));
    madeTemp = true;
    try {
      await write(handle);
      if (hooks.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await hooks.beforeRename?.(temp);
    await replaceFile(temp, path);
  } catch (error) {
    if (madeTemp) await rm(temp, { force: true }).catch(() => undefined);
    throw FileWriteError.of(path, error);
  }
}

/** What `replaceFile` uses of the system; tests play Windows with it. */
export interface ReplaceSystem {
  platform: NodeJS.Platform;
  rename(from: string, to: string): Promise<void>;
  sleep(ms: number): Promise<void>;
}

const SYSTEM: ReplaceSystem = {
  platform: process.platform,
  rename,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Codes Windows gives a rename over a file another program has open (a viewer, a scanner, a browser). */
const HELD_CODES = new Set(['EPERM', 'EBUSY', 'EACCES']);
/** About five seconds in all: a virus scanner lets go within that; a viewer someone left open does not. */
const HELD_DELAYS_MS = [10, 20, 40, 80, 160, 320, 500, 500, 500, 500, 500, 500, 500, 500, 500];

/**
 * Renames `from` over `to`. On Windows a target another program holds open cannot be replaced
 * for a while: the rename is tried again with a bounded backoff, as the well-kept atomic-write
 * libraries do, and then fails saying what holds it. Elsewhere those codes mean a permission
 * problem that waiting does not cure.
 */
export async function replaceFile(from: string, to: string, system: ReplaceSystem = SYSTEM): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await system.rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      const delay = HELD_DELAYS_MS[attempt];
      if (system.platform !== 'win32' || !HELD_CODES.has(code)) throw error;
      if (delay === undefined)
        throw new FileWriteError(
          to,
          code,
          `another program holds it open (${code}) and did not let go within ${Math.round(HELD_DELAYS_MS.reduce((a, b) => a + b) / 1000)} s`,
          'close what has the file open (an image viewer, the report in a browser) or exclude the folder from the virus scanner, then run again',
        );
      await system.sleep(delay);
    }
  }
}

/**
 * Flushes folders' entries to disk, so files renamed into them stay there after a power loss.
 * Windows has no folder handle to flush (its renames are journalled by NTFS); filesystems
 * that cannot flush a folder (some network ones) are taken at their word.
 */
export async function syncFolders(dirs: Iterable<string>, platform: NodeJS.Platform = process.platform): Promise<void> {
  if (platform === 'win32') return;
  await Promise.all(
    [...new Set(dirs)].map(async (dir) => {
      let handle: FileHandle | undefined;
      try {
        handle = await open(dir, 'r');
        await handle.sync();
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'EBADF')
          throw FileWriteError.of(dir, error);
      } finally {
        await handle?.close().catch(() => undefined);
      }
    }),
  );
}

/**
 * A seam for tests of what a full disk, a read-only folder or a path too long does to a run:
 * while set, a write whose target it answers with an error fails with that error before any
 * byte is written. Production code never sets it.
 */
let fault: ((path: string) => Error | undefined) | undefined;

export function setWriteFault(f: ((path: string) => Error | undefined) | undefined): void {
  fault = f;
}

/** Raises the injected fault for `path`, if any; the journal's appends pass here too. */
export function injectedFault(path: string): void {
  const error = fault?.(path);
  if (error) throw error;
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
