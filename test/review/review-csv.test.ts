// review.csv's cells: formulas written as text, numbers as numbers, quotes as RFC 4180 has
// them; the table read back by csv-parse gives the texts typed.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { csvCell, reviewCsv } from '../../src/review/review-csv.js';
import { readReview } from '../../src/result/review-file.js';

test('a cell that a spreadsheet would run is written as text; numbers and plain text stay as they are', () => {
  assert.equal(csvCell('=1+1'), "'=1+1");
  assert.equal(csvCell('+41 79'), "'+41 79");
  assert.equal(csvCell('-2+3'), "'-2+3");
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell('\t=1'), "'\t=1");
  assert.equal(csvCell('-3.5'), '-3.5');
  assert.equal(csvCell('1e-3'), '1e-3');
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell('a, "b"'), '"a, ""b"""');
  assert.equal(csvCell('=cmd|" /C calc"!A0'), `"'=cmd|"" /C calc""!A0"`);
  assert.equal(csvCell('two\nlines'), '"two\nlines"');
});

test('the table has a row per case, the review columns, then the manifest columns, and reads back as typed', () => {
  const text = reviewCsv(
    {
      version: 1,
      cases: {
        a: {
          verdict: 'fail',
          comment: 'edge, "leak"\nsee slice 3',
          tags: ['motion', 'teaching'],
          representative: true,
          reviewer: 'Ana',
          time: '2026-01-01T00:00:00.000Z',
          captures: {},
        },
      },
    },
    [
      { name: 'a', status: 'passed', fields: { name: 'a', case: 'x1', age: '61' }, captures: [] },
      { name: 'b', status: 'failed', fields: { name: 'b', age: '-4' }, captures: [] },
    ],
    ['name', 'case', 'age'],
  );
  assert.ok(text.startsWith('\uFEFF'));
  assert.ok(text.endsWith('\r\n'));
  const rows = parse(text.slice(1), { columns: true }) as Array<Record<string, string>>;
  assert.deepEqual(rows, [
    {
      case: 'a',
      verdict: 'fail',
      comment: 'edge, "leak"\nsee slice 3',
      tags: 'motion; teaching',
      representative: 'yes',
      reviewer: 'Ana',
      time: '2026-01-01T00:00:00.000Z',
      name: 'a',
      'field case': 'x1',
      age: '61',
    },
    {
      case: 'b',
      verdict: '',
      comment: '',
      tags: '',
      representative: '',
      reviewer: '',
      time: '',
      name: 'b',
      'field case': '',
      age: '-4',
    },
  ]);
});

test('a damaged review.json is refused naming the file and what is wrong', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-review-file-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.deepEqual(await readReview(dir), { version: 1, cases: {} }, 'a folder not reviewed yet');
  const file = join(dir, 'review.json');
  const bad: Array<[string, RegExp]> = [
    ['{"version": 1, "cases": ', /review\.json is not valid JSON/],
    ['{"version": 2, "cases": {}}', /review\.json has review version 2; this wbplay reads version 1/],
    [
      '{"version": 1, "cases": {"a": {"comment": "", "tags": [], "representative": false, "reviewer": "x", "time": "t", "captures": {"a.png": "abc"}}}}',
      /case "a" has captures that are not SHA-256 hashes by path/,
    ],
  ];
  for (const [text, message] of bad) {
    await writeFile(file, text);
    await assert.rejects(readReview(dir), (e: Error & { code?: string }) => {
      assert.match(e.message, message);
      assert.ok(e.message.includes(file));
      return true;
    });
  }
});
