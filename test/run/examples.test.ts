import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseShard, selectShard } from '../../src/run/shard.js';
import { root, wbplay } from '../helpers/cohort.js';
import { withTempDir } from '../helpers/workbench.js';

function load(path: string): Record<string, unknown> {
  const doc = parseDocument(readFileSync(path, 'utf8'), { uniqueKeys: true });
  assert.deepEqual(
    doc.errors.map((e) => e.message),
    [],
    `${path} parses`,
  );
  return doc.toJS() as Record<string, unknown>;
}

/** Every study lands in exactly one of the example's shards. */
function coversCohort(
  shardSpecs: string[],
  env: (spec: string) => NodeJS.ProcessEnv = () => ({}),
  spec?: string,
): void {
  const studies = Array.from({ length: 24 }, (_, i) => `study-${String(i + 1).padStart(3, '0')}`);
  const picked = shardSpecs.flatMap((s) => selectShard(studies, (x) => x, parseShard(spec ?? s, env(s))));
  assert.deepEqual([...picked].sort(), studies);
}

test('the GitHub Actions example shards the cohort over its matrix and merges the shards', () => {
  const wf = load('examples/github-actions/cohort-sharded.yml') as {
    jobs: {
      shard: { strategy: { matrix: { shard: number[] } }; steps: Array<{ run?: string }> };
      report: { needs: string; steps: Array<{ run?: string }> };
    };
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
    spec: {
      completionMode: string;
      completions: number;
      template: { spec: { containers: Array<{ command: string[]; args: string[] }> } };
    };
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

test('the GitHub Actions real-workbench variant launches MITK under a virtual display for each shard and merges them', () => {
  const wf = load('examples/github-actions/cohort-sharded-mitk.yml') as {
    jobs: {
      shard: {
        strategy: { matrix: { shard: number[] } };
        steps: Array<{ run?: string; env?: Record<string, string> }>;
      };
      report: { needs: string; steps: Array<{ run?: string }> };
    };
  };
  const matrix = wf.jobs.shard.strategy.matrix.shard;
  const step = wf.jobs.shard.steps.find((s) => (s.run ?? '').includes('wbplay run'))!;
  assert.match(
    step.run!,
    /^xvfb-run -a npx wbplay run playbooks\/cohort\.yaml --launch /,
    'MITK is launched by wbplay, under Xvfb',
  );
  assert.ok(step.env?.MITK_WORKBENCH, 'the executable comes from MITK_WORKBENCH');
  assert.doesNotMatch(step.run!, /--url/);
  const m = /--shard \$\{\{ matrix\.shard \}\}\/(\d+)/.exec(step.run!);
  assert.equal(Number(m?.[1]), matrix.length);
  coversCohort(matrix.map((i) => `${i}/${matrix.length}`));
  const merge = wf.jobs.report.steps.map((s) => s.run ?? '').find((r) => r.includes('wbplay merge-reports'))!;
  for (const i of matrix) assert.ok(merge.includes(`out/shard-${i}`));
});

test('the Kubernetes real-workbench variant runs MITK as a sidecar with its REST server enabled, ready through /health, the token from a Secret', () => {
  interface Container {
    name: string;
    command?: string[];
    args?: string[];
    restartPolicy?: string;
    startupProbe?: { httpGet?: { path: string; port: number } };
    env?: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  }
  const job = load('examples/kubernetes/cohort-indexed-job-mitk.yaml') as {
    spec: {
      completionMode: string;
      completions: number;
      template: { spec: { initContainers: Container[]; containers: Container[] } };
    };
  };
  const { initContainers, containers } = job.spec.template.spec;
  const mitk = initContainers.find((c) => c.name === 'mitk')!;
  assert.equal(mitk.restartPolicy, 'Always', 'a native sidecar: started, and probed, before wbplay');
  assert.deepEqual(mitk.startupProbe?.httpGet, { path: '/api/v1/health', port: 8080 });
  assert.deepEqual(mitk.command!.slice(0, 2), ['xvfb-run', '-a']);
  assert.ok(mitk.command!.includes('--MITK.preferences-override'));
  const prefs = initContainers.find((c) => c.name === 'preferences')!;
  assert.match(
    prefs.args!.join('\n'),
    /name="org\.mitk\.restapi"[\s\S]*name="enabled" value="true"[\s\S]*name="requireAuth" value="true"[\s\S]*name="apiToken" value="\$TOKEN"/,
  );
  const wbplay = containers[0]!;
  const args = [...wbplay.command!, ...wbplay.args!];
  assert.equal(args[args.indexOf('--url') + 1], 'http://127.0.0.1:8080');
  assert.equal(
    wbplay.env!.find((e) => e.name === 'WORKBENCH_TOKEN')?.valueFrom?.secretKeyRef?.name,
    'mitk-rest',
    'the default token variable, from the Secret',
  );
  assert.equal(args[args.indexOf('--shard') + 1], `env:JOB_COMPLETION_INDEX/${job.spec.completions}`);
});

test('the cross-platform example runs every example playbook on Linux and Windows, and its commands work as written', async () => {
  const wf = load('examples/github-actions/examples-linux-windows.yml') as {
    jobs: { examples: { 'runs-on': string; strategy: { matrix: { os: string[] } }; steps: Array<{ run?: string }> } };
  };
  const job = wf.jobs.examples;
  assert.equal(job['runs-on'], '${{ matrix.os }}');
  assert.deepEqual(job.strategy.matrix.os, ['ubuntu-latest', 'windows-latest']);
  const commands = job.steps
    .map((s) => s.run)
    .filter((r): r is string => r !== undefined && r.startsWith('npx wbplay'));
  assert.ok(
    commands.some((c) => c.startsWith('npx wbplay run playbooks ')),
    'the whole playbooks folder runs',
  );
  // The same commands, here, in a copy of the repository's playbooks: they must pass as the job expects.
  await withTempDir(async (dir) => {
    await cp(join(root, 'playbooks'), join(dir, 'playbooks'), { recursive: true });
    for (const command of commands) {
      const args = command.replace(/^npx wbplay /, '').split(' ');
      const r = await wbplay(args, dir, { CI: 'true' });
      assert.equal(r.code, 0, `${command}\n${r.stdout.slice(-2000)}\n${r.stderr}`);
    }
  });
});

test('the Slurm example: an array task per shard (--shard slurm), a merge job that waits for all of them and is cancelled with a failed one, valid bash', async () => {
  const read = (name: string): string => readFileSync(join(root, 'examples', 'slurm', name), 'utf8');
  for (const name of ['submit.sh', 'cohort.sbatch', 'cohort-mitk.sbatch', 'merge.sbatch']) {
    const syntax = spawnSync('bash', ['-n', join(root, 'examples', 'slurm', name)], { encoding: 'utf8' });
    assert.equal(syntax.status, 0, `${name}: ${syntax.stderr}`);
    assert.ok((statSync(join(root, 'examples', 'slurm', name)).mode & 0o111) !== 0, `${name} is executable`);
  }
  const submit = read('submit.sh');
  assert.match(submit, /sbatch --parsable --array="1-\$shards"/);
  assert.match(submit, /--dependency="afterok:\$array" --kill-on-invalid-dep=yes/);
  assert.match(submit, /rm -rf "\$out\/merged"/, 'an earlier merged report does not outlive a new submission');
  for (const task of ['cohort.sbatch', 'cohort-mitk.sbatch']) {
    const text = read(task);
    assert.match(text, /run "\$playbook" (--launch )?--shard slurm --out "\$out\/shard-\$shard"/, task);
    assert.match(text, /\$\{WBPLAY:-npx wbplay\}/, `${task}: WBPLAY says how wbplay starts`);
  }
  const mitk = read('cohort-mitk.sbatch');
  assert.match(mitk, /xvfb-run -a/);
  assert.match(mitk, /--launch/);
  assert.match(mitk, /#SBATCH --cpus-per-task=2/);
  assert.match(read('merge.sbatch'), /merge-reports "\$\{dirs\[@\]\}" --out "\$out\/merged"/);
  // Each task's shard, as --shard slurm reads it, covers the cohort once.
  coversCohort(
    ['1', '2', '3'],
    (id) => ({
      SLURM_ARRAY_TASK_ID: id,
      SLURM_ARRAY_TASK_MIN: '1',
      SLURM_ARRAY_TASK_MAX: '3',
      SLURM_ARRAY_TASK_COUNT: '3',
    }),
    'slurm',
  );
  // Outside Slurm, the scripts say how they are meant to be used instead of running anything.
  const outside = spawnSync(join(root, 'examples', 'slurm', 'submit.sh'), ['playbooks/cohort.yaml'], {
    encoding: 'utf8',
  });
  assert.equal(outside.status, 2);
  assert.match(outside.stderr, /usage: .*submit\.sh PLAYBOOK OUT SHARDS \[wbplay run options…\]/);
});
