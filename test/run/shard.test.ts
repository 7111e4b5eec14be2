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
