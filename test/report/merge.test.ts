import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { writeReportFiles } from '../../src/report/factory.js';
import { writeJsonReport } from '../../src/report/json.js';
import { mergeReports, mergeRunResults, relocate } from '../../src/report/merge.js';
import { runStatus } from '../../src/result/result.js';
import { readRunResult } from '../../src/report/read-report.js';
import { ReportError } from '../../src/report/report-error.js';
import { runOf } from '../../src/result/case-list.js';
import { summarize, type RunResultTree } from '../../src/result/result.js';
import { recordedResult } from './replay.js';

/** A shard of the whole run: some of its cases, its own start and duration, its own workbench URL. */
function shard(whole: RunResultTree, ids: string[], startedAt: string, durationMs: number, url: string): RunResultTree {
  const cases = whole.cases.filter((c) => ids.includes(c.id)).map((c) => ({ ...c, workbench: url }));
  return {
    ...structuredClone(whole),
    startedAt,
    durationMs,
    status: runStatus(cases),
    cases: structuredClone(cases),
    summary: summarize(cases),
    provenance: { ...structuredClone(whole.provenance), workbench: { ...whole.provenance.workbench, url } },
  };
}

/** Times differ between a sharded and an unsharded run; everything else must not. */
function withoutTimes(result: RunResultTree): unknown {
  return JSON.parse(
    JSON.stringify(result, (key, value: unknown) => (key === 'startedAt' || key === 'durationMs' ? 0 : value)),
  );
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'wbplay-merge-'));
}

test('the merged report of two halves equals the whole, modulo times and where the artefacts are', async () => {
  const root = await tempDir();
  try {
    const whole = recordedResult();
    const url = 'http://127.0.0.1:41234';
    for (const c of whole.cases) c.workbench = url;
    // Shards ran on two machines; CI downloaded their output folders side by side.
    const a = shard(whole, ['study-01', 'study-03', 'study-05'], '2025-03-14T09:26:55.000Z', 1000, url);
    const b = shard(whole, ['study-04', 'study-02'], '2025-03-14T09:26:53.500Z', 1200, url);
    const dirA = join(root, 'shard-1');
    const dirB = join(root, 'shard-2');
    await writeJsonReport(runOf(a), dirA);
    await writeJsonReport(runOf(b), dirB);
    const outDir = join(root, 'merged');

    const merged = await mergeReports([dirA, dirB], outDir);
    const mergedCases = await merged.cases.all();

    assert.equal(merged.startedAt, '2025-03-14T09:26:53.500Z', 'the earliest start');
    assert.equal(merged.durationMs, 2500, 'from the first start to the last end');
    assert.deepEqual(
      mergedCases.map((c) => c.id),
      ['study-01', 'study-02', 'study-03', 'study-04', 'study-05'],
    );
    assert.deepEqual(merged.summary, whole.summary);
    assert.equal(merged.status, whole.status);
    // Each artefact path, followed from the merged folder, lands on the file of its shard.
    const shardOf = (id: string): string => (['study-04', 'study-02'].includes(id) ? dirB : dirA);
    for (const c of mergedCases) {
      const original = whole.cases.find((w) => w.id === c.id);
      c.steps.forEach((s, i) => {
        s.artefacts.forEach((art, j) => {
          const before = original?.steps[i]?.artefacts[j]?.path ?? '';
          assert.equal(resolve(outDir, art.path), resolve(shardOf(c.id), before));
          assert.ok(art.path.startsWith('../shard-'), art.path);
          art.path = before;
        });
      });
    }
    assert.deepEqual(withoutTimes({ ...merged, cases: mergedCases }), withoutTimes(whole));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('provenance keeps what the shards agree on; cases keep their own workbench', () => {
  const whole = recordedResult();
  const a = shard(whole, ['study-01'], '2025-03-14T09:26:53.000Z', 10, 'http://a:1');
  const b = shard(whole, ['study-02'], '2025-03-14T09:26:53.000Z', 10, 'http://b:1');
  b.provenance.playbooks.push({ path: 'playbooks/other.yaml', sha256: 'ff' });
  const merged = mergeRunResults(
    [
      { result: runOf(a), dir: '/s/a' },
      { result: runOf(b), dir: '/s/b' },
    ],
    '/s/out',
  );
  assert.deepEqual(merged.provenance.workbench, {
    name: 'wbplay reference workbench',
    engine_version: '2024.12',
    api_version: '1.2.0',
  });
  assert.deepEqual(
    merged.provenance.playbooks.map((p) => p.path),
    ['playbooks/regression.yaml', 'playbooks/other.yaml'],
  );
  assert.equal(merged.provenance.wbplay, '0.1.0');
  assert.deepEqual(
    merged.cases.summaries.map((c) => c.workbench),
    ['http://a:1', 'http://b:1'],
  );
});

test('cases sort by playbook in run order, then by id in natural order', () => {
  const whole = recordedResult();
  const base = whole.cases[0];
  assert.ok(base);
  const make = (id: string, playbook: string) => ({ ...structuredClone(base), id, name: id, playbook });
  const r: RunResultTree = {
    ...whole,
    cases: [make('s10', 'b.yaml'), make('s2', 'a.yaml'), make('s1', 'b.yaml'), make('s2', 'b.yaml')],
    provenance: {
      ...whole.provenance,
      playbooks: [
        { path: 'b.yaml', sha256: '1' },
        { path: 'a.yaml', sha256: '2' },
      ],
    },
  };
  const merged = mergeRunResults([{ result: runOf(r), dir: '/x' }], '/x');
  assert.deepEqual(
    merged.cases.summaries.map((c) => `${c.playbook}:${c.id}`),
    ['b.yaml:s1', 'b.yaml:s2', 'b.yaml:s10', 'a.yaml:s2'],
  );
});

test('shards that overlap, or nothing to merge, are clear errors', () => {
  const whole = recordedResult();
  const a = shard(whole, ['study-01', 'study-02'], whole.startedAt, 10, 'http://a');
  const b = shard(whole, ['study-02'], whole.startedAt, 10, 'http://b');
  assert.throws(
    () =>
      mergeRunResults(
        [
          { result: runOf(a), dir: 'out-1' },
          { result: runOf(b), dir: 'out-2' },
        ],
        'merged',
      ),
    (e: unknown) => {
      assert.ok(e instanceof ReportError);
      assert.equal(e.code, 'SHARDS_OVERLAP');
      assert.match(e.message, /study-02.*out-1.*out-2/);
      return true;
    },
  );
  assert.throws(() => mergeRunResults([], 'merged'), { code: 'NO_REPORTS' });
});

test('reading a shard report says what is wrong with it and where', async () => {
  const dir = await tempDir();
  try {
    await assert.rejects(
      readRunResult(join(dir, 'missing')),
      (e: unknown) => e instanceof ReportError && e.code === 'REPORT_NOT_FOUND' && e.message.includes('report.json'),
    );
    await writeFile(join(dir, 'report.json'), '{"version": 1, "cases": [');
    await assert.rejects(readRunResult(dir), { code: 'REPORT_INVALID', message: /is not valid JSON/ });
    await writeFile(join(dir, 'report.json'), JSON.stringify({ ...recordedResult(), version: 99 }));
    await assert.rejects(readRunResult(dir), { code: 'REPORT_VERSION', message: /version 99/ });
    const broken = recordedResult() as unknown as { cases: Array<{ steps: Array<{ status: string }> }> };
    const firstStep = broken.cases[1]?.steps[0];
    assert.ok(firstStep);
    firstStep.status = 'fine';
    await writeFile(join(dir, 'report.json'), JSON.stringify(broken));
    await assert.rejects(readRunResult(dir), { code: 'REPORT_INVALID', message: /at \/cases\/1\/steps\/0\/status/ });
    await mkdir(join(dir, 'nested'));
    await writeFile(join(dir, 'nested', 'r.json'), JSON.stringify(recordedResult()));
    assert.deepEqual(await readRunResult(join(dir, 'nested', 'r.json')), recordedResult());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('artefact paths move with the folder; absolute ones stay', () => {
  assert.equal(relocate('cases/a.png', '/ci/shard-1', '/ci/merged'), '../shard-1/cases/a.png');
  assert.equal(relocate('cases/a.png', '/ci/all/shard-1', '/ci/all'), 'shard-1/cases/a.png');
  assert.equal(relocate('/data/figs/a.png', '/ci/shard-1', '/ci/merged'), '/data/figs/a.png');
  assert.equal(relocate('a.png', 'shard', '.'), relative('.', 'shard/a.png'));
});

test('merged into the folder of one of its shards, the merge reads that shard as it was', async () => {
  const root = await tempDir();
  try {
    const whole = recordedResult();
    const a = shard(whole, ['study-01', 'study-03', 'study-05'], whole.startedAt, 10, 'http://a');
    const b = shard(whole, ['study-02', 'study-04'], whole.startedAt, 10, 'http://b');
    const dirA = join(root, 'a');
    const dirB = join(root, 'b');
    await writeJsonReport(runOf(a), dirA);
    await writeJsonReport(runOf(b), dirB);
    // report.json of shard a is replaced by the merged one while its cases are still read for the other files.
    await writeReportFiles(await mergeReports([dirA, dirB], dirA), dirA);
    const merged = await readRunResult(dirA);
    assert.deepEqual(
      merged.cases.map((c) => c.id),
      ['study-01', 'study-02', 'study-03', 'study-04', 'study-05'],
    );
    assert.match(await readFile(join(dirA, 'junit.xml'), 'utf8'), /tests="5"/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
