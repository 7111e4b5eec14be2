// Prefetch of a cohort's series from an archive: while a case runs, the next cases' series are
// retrieved one after another, at most `ahead` cases ahead and within a disk budget; a case
// whose series was fetched ahead takes it without a second retrieval, and one whose prefetch
// failed retrieves it again when its turn comes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RetrieveRef } from '../../src/compile/plan.js';
import type { CachedSeries } from '../../src/dicomweb/types.js';
import type { Archives } from '../../src/run/archives.js';
import { Prefetch } from '../../src/run/prefetch.js';
import type { RunItem } from '../../src/run/run-item.js';

interface Call {
  series: string;
  resolve(bytes?: number): void;
  reject(err: Error): void;
}

/** An archive whose retrievals finish when the test says so. */
function fakeArchives(): { archives: Archives; calls: Call[] } {
  const calls: Call[] = [];
  const archives = {
    retrieve(ref: Pick<RetrieveRef, 'series'>): Promise<CachedSeries> {
      return new Promise((resolve, reject) => {
        calls.push({
          series: ref.series,
          resolve: (bytes = 100) =>
            resolve({ dir: `/cache/${ref.series}`, files: [], bytes, fetched: true, fetchedInstances: 1 }),
          reject,
        });
      });
    },
  } as unknown as Archives;
  return { archives, calls };
}

function items(n: number): RunItem[] {
  const plan = { name: 'p' };
  return Array.from(
    { length: n },
    (_, i) =>
      ({
        plan,
        number: i + 1,
        case: {
          id: `c${i + 1}`,
          retrieve: [{ url: 'http://archive', study: 's', series: `se${i + 1}`, instances: 1, dir: `/d${i + 1}` }],
        },
      }) as unknown as RunItem,
  );
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('the next two cases are fetched one after another once the running case has its series', async () => {
  const { archives, calls } = fakeArchives();
  const all = items(5);
  const prefetch = new Prefetch(archives, all, { ahead: 2, budgetBytes: 1e9 });
  const first = prefetch.ready(all[0]!);
  await tick();
  assert.deepEqual(
    calls.map((c) => c.series),
    ['se1'],
    'nothing is fetched ahead before the running case has its own series',
  );
  calls[0]!.resolve();
  await first;
  await tick();
  assert.deepEqual(
    calls.map((c) => c.series),
    ['se1', 'se2'],
    'one prefetch at a time',
  );
  calls[1]!.resolve();
  await tick();
  await tick();
  assert.deepEqual(
    calls.map((c) => c.series),
    ['se1', 'se2', 'se3'],
  );
  // Case 2 takes what was fetched ahead: no second retrieval of se2.
  await prefetch.ready(all[1]!);
  assert.equal(calls.filter((c) => c.series === 'se2').length, 1);
  // Case 4 is now within reach; it waits for se3's prefetch to finish first.
  calls[2]!.resolve();
  await tick();
  await tick();
  assert.deepEqual(
    calls.map((c) => c.series),
    ['se1', 'se2', 'se3', 'se4'],
  );
  assert.ok(!calls.some((c) => c.series === 'se5'), 'never more than two cases ahead');
});

test('a case whose prefetch failed retrieves its series again when its turn comes', async () => {
  const { archives, calls } = fakeArchives();
  const all = items(2);
  const prefetch = new Prefetch(archives, all, { ahead: 1, budgetBytes: 1e9 });
  const first = prefetch.ready(all[0]!);
  calls[0]!.resolve();
  await first;
  await tick();
  calls[1]!.reject(new Error('connection reset'));
  await tick();
  const second = prefetch.ready(all[1]!);
  await tick();
  assert.equal(calls.length, 3, 'asked again');
  calls[2]!.resolve();
  const [series] = await second;
  assert.equal(series?.dir, '/cache/se2');
});

test('nothing more is fetched ahead once the series waiting for their cases fill the budget', async () => {
  const { archives, calls } = fakeArchives();
  const all = items(4);
  const prefetch = new Prefetch(archives, all, { ahead: 3, budgetBytes: 150 });
  const first = prefetch.ready(all[0]!);
  calls[0]!.resolve();
  await first;
  await tick();
  calls[1]!.resolve(200);
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(
    calls.map((c) => c.series),
    ['se1', 'se2'],
    'se2 waits with 200 bytes, over the budget of 150: se3 waits',
  );
  await prefetch.ready(all[1]!);
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(
    calls.map((c) => c.series),
    ['se1', 'se2', 'se3'],
    'its case took se2, freeing the budget',
  );
});

test('cases the journal may hold as done are not fetched ahead', async () => {
  const { archives, calls } = fakeArchives();
  const all = items(3);
  const prefetch = new Prefetch(archives, all, { ahead: 2, budgetBytes: 1e9, skip: (i) => i.number === 2 });
  const first = prefetch.ready(all[0]!);
  calls[0]!.resolve();
  await first;
  await tick();
  await tick();
  assert.deepEqual(
    calls.map((c) => c.series),
    ['se1', 'se3'],
  );
});
