// Reviews merged: two reviewers' files into one, with their disagreements listed and left
// without a verdict; the shards of a run merged by merge-reports keep each shard's review, its
// capture hashes still those of the captures the merged report names.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { FileHasher } from '../../src/files/file-hash.js';
import { startCaseReviewServer } from '../../src/review/case-review-server.js';
import { readReviewCases } from '../../src/review/review-cases.js';
import { mergeReviewers } from '../../src/review/review-merge.js';
import { ReviewStore } from '../../src/review/review-store.js';
import { readReview, type CaseReview, type ReviewFile, type Verdict } from '../../src/result/review-file.js';
import { makeCohort, wbplay } from '../helpers/cohort.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-review-merge-'));
  await makeCohort(dir, 4);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Gives verdicts on the cases of `out` as the page does: with the hashes of the captures now. */
async function review(out: string, reviewer: string, verdicts: Record<string, Verdict>, comment = ''): Promise<void> {
  const cases = await readReviewCases(out);
  const store = await ReviewStore.open(cases, reviewer);
  const hasher = new FileHasher();
  for (const [suffix, verdict] of Object.entries(verdicts)) {
    const c = cases.cases.find((k) => k.name.endsWith(suffix));
    assert.ok(c, suffix);
    const seen: Record<string, string> = {};
    for (const k of c.captures) seen[k.path] = (await hasher.hash(cases.file(k.path)))!;
    await store.change(c.name, { verdict, comment, seen });
  }
}

function record(reviewer: string, verdict: Verdict, time: string, extra: Partial<CaseReview> = {}): CaseReview {
  return { verdict, comment: '', tags: [], representative: false, reviewer, time, captures: {}, ...extra };
}

test('two reviewers: agreement kept with both names, tags and comments; a disagreement listed and left without a verdict', () => {
  const a: ReviewFile = {
    version: 1,
    cases: {
      same: record('Ana', 'pass', '2026-01-01T10:00:00Z', { tags: ['clean'], comment: 'fine' }),
      differ: record('Ana', 'pass', '2026-01-01T10:01:00Z', { comment: 'ok to me' }),
      'only a': record('Ana', 'unsure', '2026-01-01T10:02:00Z'),
    },
  };
  const b: ReviewFile = {
    version: 1,
    cases: {
      same: record('Ben', 'pass', '2026-01-02T10:00:00Z', { tags: ['clean', 'teaching'], representative: true }),
      differ: record('Ben', 'fail', '2026-01-02T10:01:00Z', { comment: 'label leaks' }),
      'only b': record('Ben', 'fail', '2026-01-02T10:02:00Z'),
    },
  };
  const { review, disagreements } = mergeReviewers(a, b);
  assert.deepEqual(Object.keys(review.cases).sort(), ['differ', 'only a', 'only b', 'same']);
  assert.equal(review.cases.same!.verdict, 'pass');
  assert.equal(review.cases.same!.reviewer, 'Ana, Ben');
  assert.deepEqual(review.cases.same!.tags, ['clean', 'teaching']);
  assert.equal(review.cases.same!.representative, true);
  assert.equal(review.cases.same!.comment, 'fine');
  assert.equal(review.cases.differ!.verdict, undefined);
  assert.equal(review.cases.differ!.comment, 'Ana: ok to me\nBen: label leaks');
  assert.deepEqual(
    review.cases.differ!.disagreement!.map((d) => [d.reviewer, d.verdict]),
    [
      ['Ana', 'pass'],
      ['Ben', 'fail'],
    ],
  );
  assert.deepEqual(disagreements, [
    {
      case: 'differ',
      said: [
        { reviewer: 'Ana', verdict: 'pass', comment: 'ok to me' },
        { reviewer: 'Ben', verdict: 'fail', comment: 'label leaks' },
      ],
    },
  ]);
  assert.deepEqual(review.cases['only b'], b.cases['only b']);
});

test('wbplay review OUT --merge A B writes the merged review into OUT and lists the disagreements', async () => {
  const run = await wbplay(['run', 'cohort.yaml', '--out', 'out'], dir);
  assert.equal(run.code, 0, run.stderr);
  const out = join(dir, 'out');
  await review(out, 'Ana', { 'study-001': 'pass', 'study-002': 'pass' }, 'looks right');
  await writeFile(join(dir, 'ana.json'), await readFile(join(out, 'review.json')));
  await rm(join(out, 'review.json'));
  await review(out, 'Ben', { 'study-001': 'pass', 'study-002': 'fail', 'study-003': 'unsure' }, 'label off');
  await writeFile(join(dir, 'ben.json'), await readFile(join(out, 'review.json')));

  const listed = await wbplay(['review', '--merge', 'ana.json', 'ben.json'], dir);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(
    listed.stdout,
    /1 disagreement:\n {2}Cohort test · study-002: Ana pass \(looks right\), Ben fail \(label off\)\n/,
  );
  assert.deepEqual(
    JSON.parse(await readFile(join(out, 'review.json'), 'utf8')),
    JSON.parse(await readFile(join(dir, 'ben.json'), 'utf8')),
    'without OUT nothing is written',
  );

  const merged = await wbplay(['review', 'out', '--merge', 'ana.json', 'ben.json'], dir);
  assert.equal(merged.code, 0, merged.stderr);
  assert.match(merged.stdout, /review\.json\n.*review\.csv\n/);
  const result = await readReview(out);
  assert.equal(result.cases['Cohort test · study-001']!.verdict, 'pass');
  assert.equal(result.cases['Cohort test · study-002']!.verdict, undefined);
  assert.equal(result.cases['Cohort test · study-003']!.verdict, 'unsure');
  const rows = parse((await readFile(join(out, 'review.csv'), 'utf8')).slice(1), { columns: true }) as Array<
    Record<string, string>
  >;
  assert.deepEqual(
    rows.map((r) => r.verdict),
    ['pass', '', 'unsure', ''],
  );
  assert.equal(rows[0]!.reviewer, 'Ana, Ben');
});

test('bad input to --merge ends with 2, naming the file', async () => {
  await writeFile(join(dir, 'broken.json'), '{"version": 1, "cases": {"x": {"verdict": "maybe"}}}');
  const cases: Array<[string[], RegExp]> = [
    [['review', '--merge', 'ana.json'], /--merge takes two review files, got 1/],
    [['review', '--merge', 'ana.json', 'missing.json'], /missing\.json does not exist/],
    [
      ['review', '--merge', 'ana.json', 'broken.json'],
      /broken\.json case "x" has verdict "maybe"; a verdict is pass, fail or unsure/,
    ],
    [['review', 'nowhere', '--no-open'], /nowhere\/report\.json does not exist/],
    [['review', 'out', '--port', 'eighty', '--no-open'], /--port must be a port number/],
  ];
  for (const [args, message] of cases) {
    const result = await wbplay(args, dir);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
  }
});

test('merge-reports keeps the reviews of the shards: every verdict, with capture hashes that still match', async () => {
  for (const shard of ['1', '2']) {
    const run = await wbplay(
      ['run', 'cohort.yaml', '--shard', `${shard}/2`, '--out', `s${shard}`, '--var', `out=s${shard}`],
      dir,
    );
    assert.equal(run.code, 0, run.stderr);
  }
  await review(
    join(dir, 's1'),
    'Ana',
    Object.fromEntries((await readReviewCases(join(dir, 's1'))).cases.map((c) => [c.name, 'pass' as Verdict])),
  );
  await review(
    join(dir, 's2'),
    'Ben',
    Object.fromEntries((await readReviewCases(join(dir, 's2'))).cases.map((c) => [c.name, 'fail' as Verdict])),
  );
  const merged = await wbplay(['merge-reports', 's1', 's2', '--out', 'merged'], dir);
  assert.equal(merged.code, 0, merged.stderr);
  assert.match(merged.stdout, /merged[/\\]review\.json\n/);
  const result = await readReview(join(dir, 'merged'));
  const names = Object.keys(result.cases).sort();
  assert.equal(names.length, 4);
  for (const name of names) {
    const r = result.cases[name]!;
    for (const path of Object.keys(r.captures)) assert.match(path, /^\.\.\/s[12]\/study-00\d\/\w+\.png$/);
  }
  const server = await startCaseReviewServer({ outputDir: join(dir, 'merged'), reviewer: 'Cy' });
  try {
    const html = await (await fetch(server.url)).text();
    const token = /name="wbplay-review" content="([0-9a-f]+)"/.exec(html)![1]!;
    const headers = { 'x-wbplay-review': token };
    for (let i = 0; i < 4; i++) {
      const detail = (await (await fetch(`${server.url}api/case?case=${i}`, { headers })).json()) as {
        review: CaseReview;
        stale: string[];
      };
      assert.ok(detail.review.verdict, `case ${i} kept its verdict`);
      assert.deepEqual(detail.stale, [], `case ${i}: the hashes match the shards' captures`);
    }
    const image = await fetch(`${server.url}api/capture?case=0&n=0`, { headers });
    assert.equal(image.status, 200, "a capture in a shard's folder is served by its case");
    assert.equal(image.headers.get('content-type'), 'image/png');
  } finally {
    await server.close();
  }
  const rows = parse((await readFile(join(dir, 'merged', 'review.csv'), 'utf8')).slice(1), { columns: true }) as Array<
    Record<string, string>
  >;
  assert.deepEqual(rows.map((r) => r.verdict).sort(), ['fail', 'fail', 'pass', 'pass']);
});
