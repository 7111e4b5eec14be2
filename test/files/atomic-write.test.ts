import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import {
  FileWriteError,
  replaceFile,
  syncFolders,
  writeChunksAtomic,
  writeFileAtomic,
} from '../../src/files/atomic-write.js';
import { slashes } from '../../src/files/portable-path.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-atomic-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('writes bytes and text, creating missing folders, and leaves no temporary file', async () => {
  await withDir(async (dir) => {
    const target = join(dir, 'a', 'b', 'golden.png');
    await writeFileAtomic(target, Uint8Array.of(1, 2, 3));
    assert.deepEqual([...(await readFile(target))], [1, 2, 3]);
    await writeFileAtomic(target, 'replaced');
    assert.equal(await readFile(target, 'utf8'), 'replaced');
    assert.deepEqual(await readdir(join(dir, 'a', 'b')), ['golden.png']);
  });
});

test('a failure between write and rename keeps the old file whole and removes the temporary file', async () => {
  await withDir(async (dir) => {
    const target = join(dir, 'golden.png');
    await writeFile(target, 'old content');
    let seenTemp = '';
    await assert.rejects(
      writeFileAtomic(target, 'new content that never lands', {
        beforeRename: async (temp) => {
          seenTemp = temp;
          // The new bytes are complete on disk before the rename is attempted.
          assert.equal(await readFile(temp, 'utf8'), 'new content that never lands');
          throw new Error('killed before rename');
        },
      }),
      /killed before rename/,
    );
    assert.equal(await readFile(target, 'utf8'), 'old content');
    assert.ok(seenTemp.startsWith(dir));
    assert.deepEqual(await readdir(dir), ['golden.png']);
  });
});

test('a failure before anything exists leaves no target and no temporary file', async () => {
  await withDir(async (dir) => {
    const target = join(dir, 'new.png');
    await assert.rejects(
      writeFileAtomic(target, 'x', {
        beforeRename: () => {
          throw new Error('stop');
        },
      }),
      /stop/,
    );
    assert.deepEqual(await readdir(dir), []);
  });
});

test('concurrent writers of one target each land whole', async () => {
  await withDir(async (dir) => {
    const target = join(dir, 'report.json');
    const contents = Array.from({ length: 8 }, (_, i) => String(i).repeat(10_000));
    await Promise.all(contents.map((c) => writeFileAtomic(target, c)));
    assert.ok(contents.includes(await readFile(target, 'utf8')));
    assert.deepEqual(await readdir(dir), ['report.json']);
  });
});

test('text made piece by piece lands whole; a source that fails leaves the old file and no temporary file', async () => {
  await withDir(async (dir) => {
    const target = join(dir, 'report.json');
    // More than one batch of text, in pieces of every size, non-ASCII included.
    const pieces = Array.from({ length: 3000 }, (_, i) => `${i}·${'x'.repeat(i % 997)}\n`);
    async function* source(failAt?: number): AsyncIterable<string> {
      for (const [i, piece] of pieces.entries()) {
        if (i === failAt) throw new Error('the cases could not be read');
        yield piece;
      }
    }
    await writeChunksAtomic(target, source());
    assert.equal(await readFile(target, 'utf8'), pieces.join(''));
    await assert.rejects(writeChunksAtomic(target, source(2500)), /could not be read/);
    assert.equal(await readFile(target, 'utf8'), pieces.join(''), 'the old report stays whole');
    assert.deepEqual(await readdir(dir), ['report.json']);
  });
});

test('a folder removed after an earlier write into it is made again', async () => {
  // The writer remembers the folders it made, so a study's outputs cost one mkdir.
  await withDir(async (dir) => {
    await writeFileAtomic(join(dir, 'study', 'axial.png'), 'first');
    await rm(join(dir, 'study'), { recursive: true });
    await writeFileAtomic(join(dir, 'study', 'coronal.png'), 'second');
    assert.equal(await readFile(join(dir, 'study', 'coronal.png'), 'utf8'), 'second');
    assert.deepEqual(await readdir(join(dir, 'study')), ['coronal.png']);
  });
});

/** A rename that fails with `codes` in turn, then succeeds; the delays it was made to wait. */
function stubRename(platform: NodeJS.Platform, codes: readonly string[]) {
  const waited: number[] = [];
  let calls = 0;
  return {
    waited,
    calls: () => calls,
    system: {
      platform,
      rename: () => {
        const code = codes[calls++];
        return code === undefined
          ? Promise.resolve()
          : Promise.reject(Object.assign(new Error(`${code}: operation not permitted, rename`), { code }));
      },
      sleep: (ms: number) => {
        waited.push(ms);
        return Promise.resolve();
      },
    },
  };
}

test('Windows: a target another program holds (EPERM, EBUSY, EACCES) is replaced once it lets go', async () => {
  const stub = stubRename('win32', ['EPERM', 'EBUSY', 'EACCES']);
  await replaceFile('a.tmp', 'report.html', stub.system);
  assert.equal(stub.calls(), 4);
  assert.deepEqual(stub.waited, [10, 20, 40]);
});

test('Windows: a target held for good fails after a bounded wait, saying what to close', async () => {
  const stub = stubRename('win32', Array(100).fill('EPERM'));
  await assert.rejects(replaceFile('a.tmp', 'C:\\out\\report.html', stub.system), (err: unknown) => {
    assert.ok(err instanceof FileWriteError);
    assert.equal(err.path, 'C:\\out\\report.html');
    assert.match(err.message, /another program holds it open \(EPERM\) and did not let go within 5 s/);
    assert.match(err.hint, /close what has the file open/);
    return true;
  });
  assert.ok(stub.waited.reduce((a, b) => a + b) <= 6000, 'bounded');
  assert.equal(stub.calls(), stub.waited.length + 1);
});

test('elsewhere the same codes mean permissions, which waiting does not cure: no retry', async () => {
  const stub = stubRename('linux', ['EACCES']);
  await assert.rejects(replaceFile('a.tmp', 'b', stub.system), { code: 'EACCES' });
  assert.equal(stub.calls(), 1);
});

test('folders are flushed where the platform can; Windows has no folder handle to flush', async () => {
  await withDir(async (dir) => {
    await syncFolders([dir, dir]);
    const gone = join(dir, 'gone');
    await syncFolders([gone], 'win32');
    await assert.rejects(
      syncFolders([gone], 'linux'),
      (err: unknown) => err instanceof FileWriteError && err.path === gone,
    );
  });
});

test('a failed write names the target and the reason, never the temporary file', async () => {
  await withDir(async (dir) => {
    const target = join(dir, 'report.json');
    await mkdir(target);
    await assert.rejects(writeFileAtomic(target, 'x'), (err: unknown) => {
      assert.ok(err instanceof FileWriteError);
      assert.equal(err.message, `could not write ${target}: illegal operation on a directory (EISDIR)`);
      assert.doesNotMatch(err.message, /\.tmp/);
      return true;
    });
  });
});

test('paths in wbplay files use / on every platform and open again on Windows as they were', () => {
  const native = 'C:\\Users\\Ann Lee\\wbplay-out\\study-001\\axial.png';
  const written = slashes(native, win32);
  assert.equal(written, 'C:/Users/Ann Lee/wbplay-out/study-001/axial.png');
  assert.equal(win32.normalize(written), native);
  assert.equal(slashes('/srv/out/a\\b.png', posix), '/srv/out/a\\b.png', 'a backslash in a POSIX name is a character');
});
