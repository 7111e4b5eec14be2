// The resume journal: one appended line per finished study, a torn last line ignored, damaged
// lines noticed, compaction to one line per study, and an earlier version's manifest read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { CaseResult } from '../../src/result/result.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal, JOURNAL_NAME, readJournalText } from '../../src/run/journal.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-journal-'));
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
    const j = await Journal.open(dir);
    const sha = await j.hasher.hash(out);
    await j.record('study-001', { inputHash: 'in-1', outputs: { [out]: sha! }, finishedAt: 'now' });

    const again = await Journal.open(dir);
    assert.equal(await again.isUpToDate('study-001', 'in-1'), true);
    assert.equal(await again.isUpToDate('study-001', 'in-2'), false, 'changed inputs');
    assert.equal(await again.isUpToDate('study-002', 'in-1'), false, 'never ran');

    await writeFile(out, 'other pixels!');
    assert.equal(await (await Journal.open(dir)).isUpToDate('study-001', 'in-1'), false, 'changed output');
    await rm(out);
    assert.equal(await (await Journal.open(dir)).isUpToDate('study-001', 'in-1'), false, 'missing output');
  });
});

test('each record appends one line: what is written per study does not grow with the cohort', async () => {
  await withDir(async (dir) => {
    const j = await Journal.open(dir);
    const sizes: number[] = [];
    let before = 0;
    for (let i = 0; i < 200; i++) {
      await j.record(`study-${String(i).padStart(4, '0')}`, {
        inputHash: 'h'.repeat(64),
        outputs: { [`/out/study-${i}/axial.png`]: 's'.repeat(64) },
        finishedAt: '2026-01-01T00:00:00.000Z',
      });
      const size = (await readFile(join(dir, JOURNAL_NAME))).length;
      sizes.push(size - before);
      before = size;
    }
    assert.ok(
      Math.max(...sizes) - Math.min(...sizes) <= 4,
      `bytes per record ${Math.min(...sizes)}..${Math.max(...sizes)}`,
    );
  });
});

test('concurrent records all land as whole lines, and no temporary file is left behind', async () => {
  await withDir(async (dir) => {
    const j = await Journal.open(dir);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => j.record(`s${i}`, { inputHash: String(i), outputs: {}, finishedAt: 'now' })),
    );
    const reread = await Journal.open(dir);
    for (let i = 0; i < 20; i++) assert.ok(reread.has(`s${i}`));
    assert.equal(reread.notice, undefined);
    assert.deepEqual(await readdir(dir), [JOURNAL_NAME]);
  });
});

test('a torn last line (a kill mid-append) is ignored quietly; a damaged line elsewhere is noticed', async () => {
  await withDir(async (dir) => {
    const j = await Journal.open(dir);
    await j.record('a', { inputHash: 'x', outputs: {}, finishedAt: 'now' });
    await appendFile(join(dir, JOURNAL_NAME), '{"study":"b","inputHash":"y","outp');
    const torn = await Journal.open(dir);
    assert.ok(torn.has('a'));
    assert.ok(!torn.has('b'), 'the torn study runs again');
    assert.equal(torn.notice, undefined);
    await appendFile(join(dir, JOURNAL_NAME), '\n{"study":"c","inputHash":"z","outputs":{},"finishedAt":"now"}\n');
    const damaged = await Journal.open(dir);
    assert.ok(damaged.has('a') && damaged.has('c'));
    assert.match(damaged.notice ?? '', /ignored 1 unreadable line of .*; those studies run again/);
  });
});

test('after a torn last line the next record starts on a line of its own; compaction keeps old and new', async () => {
  await withDir(async (dir) => {
    const first = await Journal.open(dir);
    await first.record('a', { inputHash: 'x', outputs: {}, finishedAt: 'now' });
    await appendFile(join(dir, JOURNAL_NAME), '{"study":"b","inputHash":"y","outp');
    const resumed = await Journal.open(dir);
    await resumed.record('c', { inputHash: 'z', outputs: {}, finishedAt: 'now' });
    const reread = readJournalText(await readFile(join(dir, JOURNAL_NAME), 'utf8'));
    assert.deepEqual([...reread.studies.keys()], ['a', 'c'], 'the new line is whole');
    assert.equal(reread.bad, 1, 'the torn line stays one bad line');
    await resumed.compact();
    const text = await readFile(join(dir, JOURNAL_NAME), 'utf8');
    assert.deepEqual(
      text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { study: string }).study),
      ['a', 'c'],
    );
  });
});

test('compaction leaves one line per study, the last record of each, in study order', async () => {
  await withDir(async (dir) => {
    const j = await Journal.open(dir);
    for (const [study, hash] of [
      ['b', '1'],
      ['a', '1'],
      ['b', '2'],
    ] as const)
      await j.record(study, { inputHash: hash, outputs: {}, finishedAt: 'now' });
    await j.compact();
    const text = await readFile(join(dir, JOURNAL_NAME), 'utf8');
    assert.equal(text.trim().split('\n').length, 2);
    const { studies } = readJournalText(text);
    assert.deepEqual([...studies.keys()], ['a', 'b']);
    assert.equal(studies.get('b')!.inputHash, '2');
    assert.deepEqual(await readdir(dir), [JOURNAL_NAME]);
  });
});

test('a folder written by an earlier version resumes from its wbplay-manifest.json', async () => {
  await withDir(async (dir) => {
    const out = join(dir, 'axial.png');
    await writeFile(out, 'pixels');
    const sha = await (await Journal.open(dir)).hasher.hash(out);
    await writeFile(
      join(dir, 'wbplay-manifest.json'),
      JSON.stringify({
        version: 1,
        studies: { s1: { inputHash: 'in', outputs: { [out]: sha }, finishedAt: 'then' } },
        files: {},
      }),
    );
    assert.equal(await (await Journal.open(dir)).isUpToDate('s1', 'in'), true);
  });
});

test("a study's result is kept in its line, read back on request, and survives compaction; a compact journal is not rewritten", async () => {
  await withDir(async (dir) => {
    const out = join(dir, 'axial.png');
    await writeFile(out, 'pixels');
    const j = await Journal.open(dir);
    const sha = (await j.hasher.hash(out))!;
    // Step arguments are the user's: a key named `result` in them is only data.
    const result = (id: string) => ({
      id,
      name: `Cohort · ${id}`,
      playbook: 'p.yaml',
      status: 'passed' as const,
      durationMs: 12,
      steps: [{ index: 1, kind: 'set', args: { result: { x: ',"result":' } }, status: 'passed' }],
    });
    for (const id of ['b', 'a']) {
      await j.record(id, {
        inputHash: 'in',
        outputs: { [out]: sha },
        finishedAt: `t-${id}`,
        result: result(id) as unknown as CaseResult,
      });
    }
    await j.compact();
    const again = await Journal.open(dir);
    assert.deepEqual(await again.result('a'), result('a'));
    assert.deepEqual(await again.result('b'), result('b'));
    assert.equal(await again.result('c'), undefined, 'never recorded');
    assert.equal(again.finishedAt('b'), 't-b');
    assert.equal(await again.isUpToDate('a', 'in'), true);

    const before = await stat(join(dir, JOURNAL_NAME));
    await again.compact();
    const after = await stat(join(dir, JOURNAL_NAME));
    assert.equal(after.ino, before.ino, 'one line per study in order already: left as it is');
    assert.deepEqual(await (await Journal.open(dir)).result('a'), result('a'));
  });
});
