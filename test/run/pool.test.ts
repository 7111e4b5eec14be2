import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPool, type PoolOptions, type PoolSlot } from '../../src/run/pool.js';

interface Slot extends PoolSlot {
  dead?: boolean;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The pool keeps no results; the test keeps each by its item's index, as the runner does. */
async function collect<I, R>(
  items: readonly I[],
  slots: readonly Slot[],
  options: Omit<PoolOptions<I, R, Slot>, 'onResult'>,
): Promise<Array<R | undefined>> {
  const results: Array<R | undefined> = new Array(items.length).fill(undefined);
  await runPool(items, slots, { ...options, onResult: (_item, result, index) => (results[index] = result) });
  return results;
}

test('every item runs once, on any slot, never two at a time on one slot', async () => {
  const slots: Slot[] = [
    { id: 1, label: 'a' },
    { id: 2, label: 'b' },
  ];
  const busy = new Set<number>();
  const ran: Array<[number, number]> = [];
  const results = await collect([1, 2, 3, 4, 5], slots, {
    run: async (item, slot) => {
      assert.ok(!busy.has(slot.id), 'a slot runs one item at a time');
      busy.add(slot.id);
      await tick();
      busy.delete(slot.id);
      ran.push([item, slot.id]);
      return item * 10;
    },
    slotAlive: async () => true,
    abandoned: () => -1,
  });
  assert.deepEqual(results, [10, 20, 30, 40, 50]);
  assert.equal(ran.length, 5);
  assert.ok(new Set(ran.map(([, s]) => s)).size === 2, 'both slots were used');
});

test('a dead slot leaves the pool and its item gets one more try elsewhere', async () => {
  const slots: Slot[] = [
    { id: 1, label: 'dies' },
    { id: 2, label: 'lives' },
  ];
  const attempts: Array<[string, number]> = [];
  const lost: string[] = [];
  const results = await collect(['x', 'y', 'z'], slots, {
    run: async (item, slot) => {
      attempts.push([item, slot.id]);
      await tick();
      if (slot.id === 1) {
        slot.dead = true;
        return `${item}:error`;
      }
      return `${item}:ok`;
    },
    slotAlive: async (slot) => !slot.dead,
    abandoned: (item, why) => `${item}:abandoned:${why}`,
    onSlotLost: (slot, item, retried) => lost.push(`${slot.label}:${item}:${retried}`),
  });
  assert.deepEqual(results, ['x:ok', 'y:ok', 'z:ok']);
  assert.deepEqual(lost, ['dies:x:true']);
  assert.equal(attempts.filter(([i]) => i === 'x').length, 2);
});

test('when every slot dies, the rest is abandoned with a reason', async () => {
  const slots: Slot[] = [{ id: 1, label: 'only' }];
  const results = await collect(['a', 'b'], slots, {
    run: async (item) => `${item}:error`,
    slotAlive: async () => false,
    abandoned: (item, why) => `${item}:${why}`,
  });
  assert.equal(results[0], 'a:error');
  assert.match(String(results[1]), /^b:no workbench left/);
});

test('shouldStop ends the pool without running the rest', async () => {
  let stop = false;
  const results = await collect([1, 2, 3], [{ id: 1, label: 'a' }], {
    run: async (item) => {
      stop = true;
      return item;
    },
    slotAlive: async () => true,
    abandoned: () => -1,
    shouldStop: () => stop,
  });
  assert.deepEqual(results, [1, undefined, undefined]);
});
