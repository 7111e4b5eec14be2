// The review's store: each change is written to review.json and review.csv at once; a change
// that could not be written (a full disk) is refused and not kept, so the files and what the
// page is told agree; changes made at the same moment are written one after another; a comment
// added later keeps the hashes the verdict was given on.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setWriteFault } from '../../src/files/atomic-write.js';
import type { ReviewCases } from '../../src/review/review-cases.js';
import { ReviewStore, checkChange } from '../../src/review/review-store.js';
import { readReview } from '../../src/result/review-file.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

async function cases(t: { after(f: () => Promise<void>): void }): Promise<ReviewCases> {
  const outputDir = await mkdtemp(join(tmpdir(), 'wbplay-review-store-'));
  t.after(() => rm(outputDir, { recursive: true, force: true }));
  return {
    outputDir,
    cases: ['one', 'two', 'three'].map((name) => ({
      name,
      status: 'passed' as const,
      fields: { name },
      captures: [{ path: `${name}/axial.png`, label: 'axial.png' }],
    })),
    fieldNames: ['name'],
    file: (p) => join(outputDir, p),
  };
}

test('a change that cannot be written is refused and not kept', async (t) => {
  const c = await cases(t);
  const store = await ReviewStore.open(c, 'Ana');
  await store.change('one', { verdict: 'pass', seen: { 'one/axial.png': A } });
  const before = await readFile(join(c.outputDir, 'review.json'), 'utf8');
  const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
  setWriteFault((path) => (path.endsWith('review.json') ? full : undefined));
  try {
    await assert.rejects(store.change('two', { verdict: 'fail', seen: {} }), /no space left on device/);
    await assert.rejects(store.change('one', { verdict: 'unsure', seen: {} }), /no space left on device/);
  } finally {
    setWriteFault(undefined);
  }
  assert.equal(await readFile(join(c.outputDir, 'review.json'), 'utf8'), before);
  await store.change('three', { verdict: 'unsure', seen: {} });
  const review = await readReview(c.outputDir);
  assert.deepEqual(Object.keys(review.cases).sort(), ['one', 'three'], 'the refused change to two was not kept');
  assert.equal(review.cases.one!.verdict, 'pass', 'nor the refused change to one');
});

test('changes at the same moment are all written; a later comment keeps the verdict’s hashes', async (t) => {
  const c = await cases(t);
  const store = await ReviewStore.open(c, 'Ana');
  await Promise.all([
    store.change('one', { verdict: 'pass', seen: { 'one/axial.png': A } }),
    store.change('two', { verdict: 'fail', seen: {} }),
    store.change('three', { representative: true, seen: {} }),
  ]);
  await store.change('one', { comment: 'checked twice', seen: { 'one/axial.png': B } });
  const review = await readReview(c.outputDir);
  assert.equal(review.cases.one!.comment, 'checked twice');
  assert.deepEqual(review.cases.one!.captures, { 'one/axial.png': A });
  assert.equal(review.cases.two!.verdict, 'fail');
  assert.equal(review.cases.three!.representative, true);
  assert.equal(review.cases.three!.verdict, undefined);
  const csv = await readFile(join(c.outputDir, 'review.csv'), 'utf8');
  assert.equal(csv.split('\r\n').length, 5, 'a head, three rows and the last line end');
});

test('a request may set the review of a case and nothing else', () => {
  const captures = new Set(['one/axial.png']);
  assert.equal(checkChange({ verdict: 'maybe', seen: {} }, captures), 'verdict must be pass, fail, unsure or null');
  assert.equal(checkChange({ verdict: 'pass' }, captures), 'seen must name the captures shown');
  assert.equal(checkChange({ seen: { '../x.png': A } }, captures), 'the case has no capture ../x.png');
  assert.equal(checkChange({ seen: { 'one/axial.png': 'x' } }, captures), 'the hash of one/axial.png is not a SHA-256');
  assert.match(String(checkChange({ tags: [''], seen: {} }, captures)), /^tags must be a list/);
  assert.match(String(checkChange({ comment: 'x'.repeat(10_001), seen: {} }, captures)), /^comment must be text/);
  assert.deepEqual(checkChange({ tags: [' a ', 'a', 'b'], verdict: null, seen: { 'one/axial.png': A } }, captures), {
    seen: { 'one/axial.png': A },
    verdict: null,
    tags: ['a', 'b'],
  });
});
