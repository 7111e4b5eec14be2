import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Manifest, MANIFEST_NAME } from '../../src/run/manifest.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-manifest-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('a recorded study is up to date while its inputs and outputs are unchanged', async () => {
  await withDir(async (dir) => {
    const out = join(dir, 'axial.png');
    await writeFile(out, 'pixels');
    const m = await Manifest.open(dir);
    const sha = await m.hasher.hash(out);
    await m.record('study-001', { inputHash: 'in-1', outputs: { [out]: sha! }, finishedAt: 'now' });

    const again = await Manifest.open(dir);
    assert.equal(await again.isUpToDate('study-001', 'in-1'), true);
    assert.equal(await again.isUpToDate('study-001', 'in-2'), false, 'changed inputs');
    assert.equal(await again.isUpToDate('study-002', 'in-1'), false, 'never ran');

    await writeFile(out, 'other pixels!');
    assert.equal(await (await Manifest.open(dir)).isUpToDate('study-001', 'in-1'), false, 'changed output');
    await rm(out);
    assert.equal(await (await Manifest.open(dir)).isUpToDate('study-001', 'in-1'), false, 'missing output');
  });
});

test('concurrent records all land, and no temporary file is left behind', async () => {
  await withDir(async (dir) => {
    const m = await Manifest.open(dir);
    await Promise.all(Array.from({ length: 20 }, (_, i) => m.record(`s${i}`, { inputHash: String(i), outputs: {}, finishedAt: 'now' })));
    const reread = await Manifest.open(dir);
    for (let i = 0; i < 20; i++) assert.ok(reread.has(`s${i}`));
    assert.deepEqual((await readdir(dir)).sort(), [MANIFEST_NAME], 'no temporary files left behind');
  });
});

test('an unreadable manifest is replaced, with a notice, instead of stopping the run', async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, MANIFEST_NAME), '{"version": 1, "stud');
    const m = await Manifest.open(dir);
    assert.match(m.notice ?? '', /ignored unreadable .*every study runs again/);
    await m.record('a', { inputHash: 'x', outputs: {}, finishedAt: 'now' });
    assert.equal(JSON.parse(await readFile(join(dir, MANIFEST_NAME), 'utf8')).version, 1);
  });
});
