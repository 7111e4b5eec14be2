import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file a run keeps in its output folder while it lasts. */
export const LOCK_FILE = 'wbplay.lock';

/** Who holds an output folder: what the lock file says. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the holder took the folder. */
  startedAt: string;
  /** The command line that took it, for the message a second run prints. */
  command: string;
}

/**
 * A lock on another host is refreshed this often; one whose file was not touched for
 * `STALE_AFTER_MS` belongs to a process that is gone (a killed pod, a machine that went down).
 * On the same host the process table answers instead, at once.
 */
const HEARTBEAT_MS = 10_000;
export const STALE_AFTER_MS = 60_000;
/** A lock is written in one call as it is made: one still empty after this was torn by a kill. */
const UNREADABLE_AFTER_MS = 2_000;

/** The folder is held by a live run. */
export class FolderInUseError extends Error {
  readonly code = 'OUTPUT_FOLDER_IN_USE';
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
    readonly hint: string,
  ) {
    super(`${dir} is in use by another run: ${describeHolder(holder)}`);
    this.name = 'FolderInUseError';
  }
}

export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid} on ${h.host} since ${h.startedAt} (${h.command})`;
}

/** How liveness is judged; tests replace it to play a process that died or a host far away. */
export interface LockEnvironment {
  host: string;
  pid: number;
  alive(pid: number): boolean;
  now(): number;
}

export const LOCAL: LockEnvironment = {
  host: hostname(),
  pid: process.pid,
  alive: processAlive,
  now: () => Date.now(),
};

/**
 * One process's hold on an output folder, so two runs never write the same reports and journal.
 * The lock file is made with O_EXCL; a lock whose holder is gone is taken over (with `notice`
 * saying so) under a second, short-lived take-over lock, so two runs that find the same stale
 * lock cannot both take it. Released on `release()` and, should the process exit without it,
 * by an exit handler; a process killed with SIGKILL leaves a lock the next run takes over.
 */
export class FolderLock {
  private timer: NodeJS.Timeout | undefined;
  private released = false;
  private readonly onExit = (): void => this.releaseSync();

  private constructor(
    readonly path: string,
    private readonly nonce: string,
  ) {
    // Another host cannot see this pid: the file's time says the holder still lives.
    this.timer = setInterval(() => void utimes(this.path, new Date(), new Date()).catch(() => undefined), HEARTBEAT_MS);
    this.timer.unref();
    process.on('exit', this.onExit);
  }

  /** Takes `dir` for this process, or throws FolderInUseError naming the holder. */
  static async take(
    dir: string,
    command: string,
    options: { notice?: (message: string) => void; env?: LockEnvironment } = {},
  ): Promise<FolderLock> {
    const env = options.env ?? LOCAL;
    await mkdir(dir, { recursive: true });
    const path = join(dir, LOCK_FILE);
    const nonce = randomBytes(8).toString('hex');
    const holder: LockHolder = { pid: env.pid, host: env.host, startedAt: new Date(env.now()).toISOString(), command };
    const text = `${JSON.stringify({ ...holder, nonce })}\n`;
    for (let attempt = 0; attempt < 20; attempt++) {
      if (await createExclusive(path, text)) return new FolderLock(path, nonce);
      const found = await readLock(path);
      if (found === 'gone') continue;
      const stale = await isStale(path, found, env);
      if (found === 'unreadable' && !stale) {
        // Being written this very moment: its holder's name is a moment away.
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (found !== 'unreadable' && !stale) {
        throw new FolderInUseError(
          dir,
          found,
          `give this run its own folder with --out, or wait for that run to end; if no run is going on, remove ${path}`,
        );
      }
      if (await takeOver(path, found, env)) {
        options.notice?.(
          found === 'unreadable'
            ? `took over ${path}: it could not be read (a run killed while writing it)`
            : `took over ${path} from a run that is gone: ${describeHolder(found)}`,
        );
      }
    }
    throw new Error(`could not take ${path}: other runs keep taking and releasing it`);
  }

  /** Gives the folder back; the lock file is removed only if it is still this process's. */
  async release(): Promise<void> {
    if (this.released) return;
    this.stop();
    const found = await readFile(this.path, 'utf8').catch(() => '');
    if (found.includes(this.nonce)) await unlink(this.path).catch(() => undefined);
  }

  /** For the exit handler and a second Ctrl-C, where nothing asynchronous runs any more. */
  releaseSync(): void {
    if (this.released) return;
    this.stop();
    try {
      if (readFileSync(this.path, 'utf8').includes(this.nonce)) unlinkSync(this.path);
    } catch {
      // Already gone, or the folder with it.
    }
  }

  private stop(): void {
    this.released = true;
    clearInterval(this.timer);
    process.off('exit', this.onExit);
  }
}

/**
 * Who holds `dir`, if a live process does; undefined when the folder is free or its lock is
 * stale. For commands that read or change a run's folder (merge, accept, show-report).
 */
export async function liveHolder(dir: string, env: LockEnvironment = LOCAL): Promise<LockHolder | undefined> {
  const path = join(dir, LOCK_FILE);
  const found = await readLock(path);
  if (found === 'gone' || found === 'unreadable') return undefined;
  return (await isStale(path, found, env)) ? undefined : found;
}

/** Throws FolderInUseError when a live run holds `dir`; `what` says what the command would do. */
export async function refuseHeld(dir: string, what: string, env: LockEnvironment = LOCAL): Promise<void> {
  const holder = await liveHolder(dir, env);
  if (holder)
    throw new FolderInUseError(
      dir,
      holder,
      `wait for that run to end before you ${what}; if no run is going on, remove ${join(dir, LOCK_FILE)}`,
    );
}

async function createExclusive(path: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await handle.writeFile(text);
  } catch (err) {
    await handle.close();
    await unlink(path).catch(() => undefined);
    throw err;
  }
  await handle.close();
  return true;
}

async function readLock(path: string): Promise<LockHolder | 'gone' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid !== 'number' || typeof h.host !== 'string') return 'unreadable';
    return {
      pid: h.pid,
      host: h.host,
      startedAt: typeof h.startedAt === 'string' ? h.startedAt : '?',
      command: typeof h.command === 'string' ? h.command : '?',
    };
  } catch {
    return 'unreadable';
  }
}

/** Gone: on this host, no such process; elsewhere, no heartbeat for a while. */
async function isStale(path: string, holder: LockHolder | 'unreadable', env: LockEnvironment): Promise<boolean> {
  if (holder !== 'unreadable' && holder.host === env.host) return holder.pid !== env.pid && !env.alive(holder.pid);
  // An unreadable lock is one being written right now, or one torn by a kill: its age tells.
  const mtime = await stat(path).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  return env.now() - mtime > (holder === 'unreadable' ? UNREADABLE_AFTER_MS : STALE_AFTER_MS);
}

/**
 * Removes a stale lock while holding `<lock>.takeover`, made with O_EXCL: of two runs that found
 * the same stale lock, one removes it and the other, next time round, finds the winner's fresh
 * lock. Only a dead holder's lock is ever removed, and a dead holder cannot release or rewrite
 * it meanwhile. A take-over lock left by a killed process is itself removed once it is stale.
 */
async function takeOver(path: string, seen: LockHolder | 'unreadable', env: LockEnvironment): Promise<boolean> {
  const guard = `${path}.takeover`;
  if (!(await createExclusive(guard, `${JSON.stringify({ pid: env.pid, host: env.host })}\n`))) {
    const other = await readLock(guard);
    if (other !== 'gone' && (await isStale(guard, other, env))) await unlink(guard).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    return false;
  }
  try {
    const now = await readLock(path);
    if (now === 'gone') return false;
    // A different holder than the one judged stale: a run that got in first; look again.
    if (now !== 'unreadable' && (seen === 'unreadable' || now.pid !== seen.pid || now.host !== seen.host)) return false;
    await unlink(path).catch(() => undefined);
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
