import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseShard, selectShard } from '../../src/run/shard.js';

const ids = Array.from({ length: 103 }, (_, i) => `study-${String(i + 1).padStart(3, '0')}`);

test('the shards of a cohort are disjoint and together make the whole', () => {
  const n = 4;
  const parts = Array.from({ length: n }, (_, i) => selectShard(ids, (x) => x, { index: i + 1, count: n }));
  const union = parts.flat();
  assert.equal(union.length, ids.length);
  assert.deepEqual([...union].sort(), [...ids].sort());
  for (const p of parts) assert.ok(Math.abs(p.length - ids.length / n) <= 1, `balanced: ${p.length}`);
});

test('a study lands in the same shard whatever order the cohort is listed in', () => {
  const shuffled = [...ids].reverse();
  for (let i = 1; i <= 3; i++) {
    const a = selectShard(ids, (x) => x, { index: i, count: 3 });
    const b = selectShard(shuffled, (x) => x, { index: i, count: 3 });
    assert.deepEqual([...a].sort(), [...b].sort());
  }
});

test('a shard keeps the cohort order', () => {
  const part = selectShard(ids, (x) => x, { index: 2, count: 5 });
  assert.deepEqual(part, [...part].sort());
});

test('shard specs: i/n, and the Indexed Job index from the environment', () => {
  assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
  assert.deepEqual(parseShard('/4', { JOB_COMPLETION_INDEX: '0' }), { index: 1, count: 4 });
  assert.deepEqual(parseShard('env:JOB_COMPLETION_INDEX/4', { JOB_COMPLETION_INDEX: '3' }), { index: 4, count: 4 });
  assert.throws(() => parseShard('5/4'), /between 1 and 4/);
  assert.throws(() => parseShard('0/4'), /between 1 and 4/);
  assert.throws(() => parseShard('a/b'), /expected i\/n/);
  assert.throws(() => parseShard('env:JOB_COMPLETION_INDEX/4', {}), /JOB_COMPLETION_INDEX must hold/);
});

test('--shard slurm: the shard of a job array task, counted from the array first task, whatever its index', () => {
  const task = (id: number, min: number, max: number, count = max - min + 1): NodeJS.ProcessEnv => ({
    SLURM_ARRAY_TASK_ID: String(id),
    SLURM_ARRAY_TASK_MIN: String(min),
    SLURM_ARRAY_TASK_MAX: String(max),
    SLURM_ARRAY_TASK_COUNT: String(count),
  });
  assert.deepEqual(parseShard('slurm', task(1, 1, 3)), { index: 1, count: 3 });
  assert.deepEqual(parseShard('slurm', task(3, 1, 3)), { index: 3, count: 3 });
  assert.deepEqual(parseShard('slurm', task(0, 0, 3)), { index: 1, count: 4 });
  assert.deepEqual(parseShard('slurm', task(7, 5, 8)), { index: 3, count: 4 });
  // Every task of an array starting anywhere has its own shard, and together they cover the cohort.
  const shards = [5, 6, 7, 8].map((id) => parseShard('slurm', task(id, 5, 8)));
  assert.deepEqual(shards.flatMap((s) => selectShard(ids, (x) => x, s)).sort(), [...ids].sort());
});

test('--shard slurm outside a job array, or in a stepped one, is a clear error', () => {
  assert.throws(
    () => parseShard('slurm', {}),
    /SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_MAX, SLURM_ARRAY_TASK_COUNT are not set; --shard slurm runs inside a task of a Slurm job array/,
  );
  // A plain batch job has a job id but no array variables.
  assert.throws(() => parseShard('slurm', { SLURM_JOB_ID: '12' }), /not set/);
  assert.throws(
    () =>
      parseShard('slurm', {
        SLURM_ARRAY_TASK_ID: '3',
        SLURM_ARRAY_TASK_MIN: '1',
        SLURM_ARRAY_TASK_MAX: '7',
        SLURM_ARRAY_TASK_COUNT: '4',
      }),
    /runs 4 tasks from 1 to 7; give it consecutive task ids/,
  );
  assert.throws(
    () =>
      parseShard('slurm', {
        SLURM_ARRAY_TASK_ID: 'x',
        SLURM_ARRAY_TASK_MIN: '1',
        SLURM_ARRAY_TASK_MAX: '3',
        SLURM_ARRAY_TASK_COUNT: '3',
      }),
    /SLURM_ARRAY_TASK_ID must be a whole number, got 'x'/,
  );
});
