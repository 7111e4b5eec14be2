// Sharding a cohort: the shards split it without gaps or overlap, the same way every time and
// from the Kubernetes index as from i/n; their reports merge into what one unsharded run reports.
import assert from 'node:assert/strict';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { mergeReports } from '../../src/report/merge.js';
import { openReport } from '../../src/report/read-report.js';
import { JsonReporter } from '../../src/report/json.js';
import type { RunResult } from '../../src/result/result.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import type { Shard } from '../../src/run/shard.js';
import { cohortPlan, FAST_RETRY, makeCohort, wbplay, type Cohort } from '../helpers/cohort.js';

const SHARDS = 3;
let dir = '';
let cohort: Cohort;
/** The unsharded run, and shard i of 3 at index i - 1; each wrote report.json into its folder. */
let whole: RunResult;
const shards: RunResult[] = [];
const wholeDir = (): string => join(dir, 'A');
const shardDir = (i: number): string => join(dir, `B${i}`);

/** One run as `wbplay run --out <out>` does it: screenshots and reports in the same folder. */
function run(out: string, shard?: Shard, signal?: AbortSignal): Promise<RunResult> {
  return runPlans({
    plans: [cohortPlan(cohort, out)],
    workbenches: embeddedWorkbenches(1),
    reporter: new JsonReporter(out),
    outputDir: out,
    retry: FAST_RETRY,
    ...(shard ? { shard } : {}),
    ...(signal ? { signal } : {}),
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-shard-'));
  cohort = await makeCohort(dir, 6);
  whole = await run(wholeDir());
  assert.equal(whole.status, 'passed');
  for (let i = 1; i <= SHARDS; i++) shards.push(await run(shardDir(i), { index: i, count: SHARDS }));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ids = (r: RunResult): string[] => r.cases.summaries.map((c) => c.id);

function readReport(out: string): Promise<RunResult> {
  return openReport(out);
}

test('shards: their union is the whole cohort, none overlaps, sizes differ by one at most, each case ran', () => {
  const all = cohort.studies.map((s) => s.name);
  const picked = shards.flatMap(ids);
  assert.deepEqual([...picked].sort(), [...all].sort(), 'every study in exactly one shard');
  assert.equal(new Set(picked).size, picked.length, 'no study in two shards');
  const sizes = shards.map((s) => s.cases.summaries.length);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `balanced: ${sizes.join(', ')}`);
  for (const s of shards) {
    assert.equal(s.status, 'passed');
    // Inside a shard the cohort keeps its own order.
    assert.deepEqual(
      ids(s),
      all.filter((id) => ids(s).includes(id)),
    );
  }
});

test('shards: computed again from a freshly compiled playbook, the split is the same', async () => {
  for (let i = 1; i <= SHARDS; i++) {
    // An aborted run selects its cases and runs none of them: the split, without the work.
    const again = await run(join(dir, `again-${i}`), { index: i, count: SHARDS }, AbortSignal.abort());
    assert.deepEqual(ids(again), ids(shards[i - 1]!), `shard ${i}/${SHARDS}`);
    assert.ok((await again.cases.all()).every((c) => c.status === 'skipped'));
  }
});

test('CLI: --shard env:JOB_COMPLETION_INDEX/3 picks the cases of --shard (index+1)/3', async () => {
  const cli = await Promise.all([
    ...[0, 1, 2].map((index) =>
      wbplay(
        [
          'run',
          'cohort.yaml',
          '--out',
          `env-${index}`,
          '--reporter',
          'line',
          '--shard',
          `env:JOB_COMPLETION_INDEX/${SHARDS}`,
        ],
        dir,
        { JOB_COMPLETION_INDEX: String(index) },
      ),
    ),
    wbplay(['run', 'cohort.yaml', '--out', 'cli-2', '--reporter', 'line', '--shard', `2/${SHARDS}`], dir),
  ]);
  for (const r of cli) assert.equal(r.code, 0, r.stderr);
  for (const index of [0, 1, 2]) {
    const report = await readReport(join(dir, `env-${index}`));
    assert.deepEqual(ids(report), ids(shards[index]!), `JOB_COMPLETION_INDEX=${index} is shard ${index + 1}/${SHARDS}`);
  }
  assert.deepEqual(ids(await readReport(join(dir, 'cli-2'))), ids(shards[1]!), '--shard 2/3 in a process of its own');
});

test('CLI: a shard with no study (more shards than studies) is a run of nothing that passes', async () => {
  const r = await wbplay(['run', 'cohort.yaml', '--out', 'empty', '--reporter', 'line', '--shard', '7/7'], dir);
  assert.equal(r.code, 0, r.stderr);
  const report = await readReport(join(dir, 'empty'));
  assert.deepEqual(await report.cases.all(), []);
  assert.equal(report.summary.total, 0);
  assert.deepEqual(report.shard, { index: 7, count: 7, total: 6 }, 'it knows what it is a part of');
  // Shards of 3 and a shard of 7 are not one run, even when the 7th adds no study.
  await assert.rejects(
    mergeReports([...[1, 2, 3].map(shardDir), join(dir, 'empty')], join(dir, 'M-empty')),
    /is shard 7\/7 of 6 cases, the one in .* shard 1\/3 of 6: they are not shards of one run/,
  );
});

/**
 * What a report says, without what differs between runs: times, durations, workbench labels,
 * node UIDs, and the run's own folder (masked as <out>). Artefact paths are resolved against the
 * report's folder first, so a merged report must point at the shard's file.
 */
async function comparable(result: RunResult, reportDir: string, runDirs: readonly string[]): Promise<unknown> {
  const mask = (value: unknown): unknown => {
    let text = JSON.stringify(value) ?? 'null';
    for (const d of [...runDirs].sort((a, b) => b.length - a.length)) text = text.split(d).join('<out>');
    return JSON.parse(text.replace(/"uid":"[^"]*"/g, '"uid":"<uid>"')) as unknown;
  };
  return {
    status: result.status,
    summary: result.summary,
    provenance: { playbooks: result.provenance.playbooks, wbplay: result.provenance.wbplay },
    cases: (await result.cases.all()).map((c) => ({
      id: c.id,
      name: c.name,
      playbook: c.playbook,
      study: c.study,
      status: c.status,
      steps: c.steps.map((s) => ({
        index: s.index,
        kind: s.kind,
        description: mask(s.description),
        span: s.span,
        status: s.status,
        skippedReason: s.skippedReason,
        error: s.error ? { code: s.error.code, status: s.error.status } : undefined,
        attempts: s.attempts.length,
        args: mask(s.args),
        resolvedArgs: mask(s.resolvedArgs),
        image: s.image,
        notices: mask(s.notices),
        artefacts: s.artefacts.map((a) => ({ kind: a.kind, path: mask(resolve(reportDir, a.path)) })),
      })),
    })),
  };
}

test('merged shard reports equal the unsharded report, times and folders aside', async () => {
  const shardDirs = [1, 2, 3].map(shardDir);
  const merged = join(dir, 'M');
  const result = await mergeReports(shardDirs, merged);
  assert.deepEqual(
    await comparable(result, merged, shardDirs),
    await comparable(await readReport(wholeDir()), wholeDir(), [wholeDir()]),
  );
  for (const c of await result.cases.all()) {
    for (const s of c.steps) for (const a of s.artefacts) await access(resolve(merged, a.path));
  }

  // The same through `wbplay merge-reports`, which also writes the merged report files.
  const cli = await wbplay(['merge-reports', ...shardDirs, '--out', 'M-cli'], dir);
  assert.equal(cli.code, 0, cli.stderr);
  const mergedCli = join(dir, 'M-cli');
  assert.deepEqual(
    await comparable(await readReport(mergedCli), mergedCli, shardDirs),
    await comparable(whole, wholeDir(), [wholeDir()]),
  );
});

test('a merge without one of the shards names it and how many studies it lacks, and writes no report', async () => {
  const given = [1, 3].map(shardDir);
  await assert.rejects(mergeReports(given, join(dir, 'M-partial')), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'SHARDS_MISSING');
    assert.match(
      e.message,
      new RegExp(
        `^shard 2 of 3 has no report among those given: ${shards[1]!.cases.summaries.length} of the run's 6 cases are missing`,
      ),
    );
    return true;
  });
  const cli = await wbplay(['merge-reports', ...given, '--out', 'M-partial-cli'], dir);
  assert.equal(cli.code, 2, cli.stdout);
  assert.match(cli.stderr, /error\[SHARDS_MISSING\]: shard 2 of 3 has no report/);
  await assert.rejects(access(join(dir, 'M-partial-cli', 'report.json')), 'no merged report claims the run');
});

test('resumed shards merge into a report of every study, each with its images, counted as up to date', async () => {
  const again = [];
  for (let i = 1; i <= SHARDS; i++) again.push(await run(shardDir(i), { index: i, count: SHARDS }));
  assert.ok(again.every((r) => r.summary.upToDate === r.summary.total && r.status === 'passed'));
  const merged = join(dir, 'M-resumed');
  const result = await mergeReports([1, 2, 3].map(shardDir), merged);
  assert.deepEqual(result.summary, { total: 6, passed: 6, failed: 0, error: 0, skipped: 0, upToDate: 6 });
  const cases = await result.cases.all();
  assert.deepEqual(cases.map((c) => c.id).sort(), ids(whole).sort());
  for (const c of cases) {
    const shots = c.steps.flatMap((s) => s.artefacts.filter((a) => a.kind === 'screenshot'));
    assert.equal(shots.length, 3, `${c.id} has its screenshots`);
    for (const a of shots) await access(resolve(merged, a.path));
  }
});
