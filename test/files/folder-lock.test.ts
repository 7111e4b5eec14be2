// The output folder's lock: one holder at a time, a dead holder's lock taken over, a lock of a
// far host judged by its heartbeat, and races between runs that start together.
import assert from 'node:assert/strict';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  FolderInUseError,
  FolderLock,
  LOCK_FILE,
  liveHolder,
  refuseHeld,
  STALE_AFTER_MS,
  type LockEnvironment,
} from '../../src/files/folder-lock.js';
import { withTempDir } from '../helpers/workbench.js';

/** A process of this host; `dead` pids are gone. */
function env(pid: number, dead: readonly number[] = [], host = 'here'): LockEnvironment {
  return { host, pid, alive: (p) => !dead.includes(p), now: () => Date.now() };
}

test('a held folder is refused with the holder named; once released it can be taken again', async () => {
  await withTempDir(async (dir) => {
    const first = await FolderLock.take(dir, 'wbplay run a.yaml', { env: env(100) });
    const holder = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as Record<string, unknown>;
    assert.equal(holder.pid, 100);
    assert.equal(holder.host, 'here');
    assert.equal(holder.command, 'wbplay run a.yaml');
    assert.match(String(holder.startedAt), /^\d{4}-\d\d-\d\dT/);

    const err = await FolderLock.take(dir, 'wbplay run b.yaml', { env: env(200) }).then(
      () => assert.fail('a second holder was let in'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof FolderInUseError);
    assert.equal(err.code, 'OUTPUT_FOLDER_IN_USE');
    assert.match(err.message, /in use by another run: pid 100 on here since .* \(wbplay run a\.yaml\)/);
    assert.match(err.hint, /--out/);
    assert.match(err.hint, new RegExp(`remove .*${LOCK_FILE}`));

    await first.release();
    await assert.rejects(stat(join(dir, LOCK_FILE)), { code: 'ENOENT' });
    const second = await FolderLock.take(dir, 'wbplay run b.yaml', { env: env(200) });
    await second.release();
  });
});

test('the lock of a process that is gone (same host) is taken over with a notice', async () => {
  await withTempDir(async (dir) => {
    await FolderLock.take(dir, 'wbplay run killed.yaml', { env: env(100) });
    const notices: string[] = [];
    const lock = await FolderLock.take(dir, 'wbplay run next.yaml', {
      env: env(200, [100]),
      notice: (m) => notices.push(m),
    });
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /took over .* from a run that is gone: pid 100 on here .*killed\.yaml/);
    assert.equal((JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as { pid: number }).pid, 200);
    await lock.release();
  });
});

test('a lock of another host holds while its heartbeat is fresh and is taken over once it stopped', async () => {
  await withTempDir(async (dir) => {
    await FolderLock.take(dir, 'wbplay run pod-a', { env: env(7, [], 'pod-a') });
    // Pid 7 is dead here, but on pod-a it may live: only the file's age can tell.
    await assert.rejects(FolderLock.take(dir, 'wbplay run pod-b', { env: env(7, [7], 'pod-b') }), FolderInUseError);
    const old = new Date(Date.now() - STALE_AFTER_MS - 5000);
    await utimes(join(dir, LOCK_FILE), old, old);
    assert.equal(await liveHolder(dir, env(9, [], 'pod-b')), undefined);
    const lock = await FolderLock.take(dir, 'wbplay run pod-b', { env: env(7, [7], 'pod-b') });
    await lock.release();
  });
});

test('of ten runs that start at once, exactly one takes the folder', async () => {
  await withTempDir(async (dir) => {
    const tries = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => FolderLock.take(dir, `run ${i}`, { env: env(1000 + i) })),
    );
    const won = tries.filter((t) => t.status === 'fulfilled');
    assert.equal(won.length, 1);
    for (const t of tries) if (t.status === 'rejected') assert.ok(t.reason instanceof FolderInUseError);
    await (won[0] as PromiseFulfilledResult<FolderLock>).value.release();
  });
});

test('of ten runs that find the same stale lock, exactly one takes it over', async () => {
  await withTempDir(async (dir) => {
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: 99, host: 'here', startedAt: '2026-01-01T00:00:00Z', command: 'wbplay run' }),
    );
    const tries = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => FolderLock.take(dir, `run ${i}`, { env: env(1000 + i, [99]) })),
    );
    assert.equal(tries.filter((t) => t.status === 'fulfilled').length, 1);
  });
});

test('a lock is removed only by its holder; the exit handler releases it too', async () => {
  await withTempDir(async (dir) => {
    const lock = await FolderLock.take(dir, 'run', { env: env(100) });
    // Someone removed it by hand and another run took the folder: releasing must not remove theirs.
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 300, host: 'here', startedAt: 'x', command: 'other' }));
    await lock.release();
    assert.equal((await liveHolder(dir, env(1)))?.pid, 300);

    const later = await FolderLock.take(join(dir, 'sub'), 'run', { env: env(100) });
    later.releaseSync();
    await assert.rejects(stat(join(dir, 'sub', LOCK_FILE)), { code: 'ENOENT' });
  });
});

test('commands that read a run folder refuse one a live run holds', async () => {
  await withTempDir(async (dir) => {
    await refuseHeld(dir, 'merge it', env(1));
    const lock = await FolderLock.take(dir, 'wbplay run x.yaml', { env: env(100) });
    await assert.rejects(refuseHeld(dir, 'merge it', env(1)), (err: unknown) => {
      assert.ok(err instanceof FolderInUseError);
      assert.match(err.hint, /wait for that run to end before you merge it/);
      return true;
    });
    await lock.release();
  });
});

test('a lock being written is waited for; one left empty by a kill is taken over once it is old', async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, LOCK_FILE), '');
    const waiting = FolderLock.take(dir, 'second', { env: env(200) });
    await new Promise((r) => setTimeout(r, 120));
    // Its maker finishes writing it: the waiting run now sees a live holder.
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 100, host: 'here', startedAt: 'x', command: 'first' }));
    await assert.rejects(waiting, FolderInUseError);

    await writeFile(join(dir, LOCK_FILE), '');
    const old = new Date(Date.now() - 5000);
    await utimes(join(dir, LOCK_FILE), old, old);
    const notices: string[] = [];
    const lock = await FolderLock.take(dir, 'third', { env: env(300), notice: (m) => notices.push(m) });
    assert.match(notices.join(''), /could not be read \(a run killed while writing it\)/);
    await lock.release();
  });
});
