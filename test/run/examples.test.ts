import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { parseShard, selectShard } from '../../src/run/shard.js';

function load(path: string): Record<string, unknown> {
  const doc = parseDocument(readFileSync(path, 'utf8'), { uniqueKeys: true });
  assert.deepEqual(doc.errors.map((e) => e.message), [], `${path} parses`);
  return doc.toJS() as Record<string, unknown>;
}

/** Every study lands in exactly one of the example's shards. */
function coversCohort(shardSpecs: string[], env: (spec: string) => NodeJS.ProcessEnv = () => ({})): void {
  const studies = Array.from({ length: 24 }, (_, i) => `study-${String(i + 1).padStart(3, '0')}`);
  const picked = shardSpecs.flatMap((spec) => selectShard(studies, (s) => s, parseShard(spec, env(spec))));
  assert.deepEqual([...picked].sort(), studies);
}

test('the GitHub Actions example shards the cohort over its matrix and merges the shards', () => {
  const wf = load('examples/github-actions/cohort-sharded.yml') as {
    jobs: { shard: { strategy: { matrix: { shard: number[] } }; steps: Array<{ run?: string }> }; report: { needs: string; steps: Array<{ run?: string }> } };
  };
  const matrix = wf.jobs.shard.strategy.matrix.shard;
  const run = wf.jobs.shard.steps.map((s) => s.run ?? '').find((r) => r.includes('wbplay run'));
  assert.ok(run, 'a wbplay run step');
  const m = /--shard \$\{\{ matrix\.shard \}\}\/(\d+)/.exec(run);
  assert.ok(m, 'the shard comes from the matrix');
  assert.equal(Number(m[1]), matrix.length, 'shard count = matrix size');
  coversCohort(matrix.map((i) => `${i}/${matrix.length}`));
  assert.equal(wf.jobs.report.needs, 'shard');
  const merge = wf.jobs.report.steps.map((s) => s.run ?? '').find((r) => r.includes('wbplay merge-reports'));
  assert.ok(merge);
  for (const i of matrix) assert.ok(merge.includes(`out/shard-${i}`), `merges shard ${i}`);
});

test('the Kubernetes example is an Indexed Job whose pods pick their shard from the index without a shell', () => {
  const job = load('examples/kubernetes/cohort-indexed-job.yaml') as {
    apiVersion: string;
    kind: string;
    spec: { completionMode: string; completions: number; template: { spec: { containers: Array<{ command: string[]; args: string[] }> } } };
  };
  assert.equal(job.apiVersion, 'batch/v1');
  assert.equal(job.kind, 'Job');
  assert.equal(job.spec.completionMode, 'Indexed');
  const container = job.spec.template.spec.containers[0]!;
  assert.ok(!['sh', 'bash', '/bin/sh'].includes(container.command[0]!), 'no shell wrapper');
  const args = [...container.command, ...container.args];
  const spec = args[args.indexOf('--shard') + 1]!;
  assert.equal(spec, `env:JOB_COMPLETION_INDEX/${job.spec.completions}`);
  coversCohort(
    Array.from({ length: job.spec.completions }, () => spec),
    (() => {
      let index = 0;
      return () => ({ JOB_COMPLETION_INDEX: String(index++) });
    })(),
  );
});
