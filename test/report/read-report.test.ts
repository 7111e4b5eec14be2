// report.json is written a case per line so it can be read back without holding every case:
// the reader keeps summaries and places, checks each case line against the published case
// schema, names the line of anything wrong, and still reads reports in any other layout whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeJsonReport } from '../../src/report/json.js';
import { openReport, readRunResult } from '../../src/report/read-report.js';
import { ReportError } from '../../src/report/report-error.js';
import { runOf } from '../../src/result/case-list.js';
import { recordedResult } from './replay.js';

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-read-report-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The lines of the report wbplay writes for the recorded run. */
async function writtenLines(dir: string): Promise<string[]> {
  await writeJsonReport(runOf(recordedResult()), dir);
  return (await readFile(join(dir, 'report.json'), 'utf8')).split('\n');
}

test('report.json holds the head on its first line, then one case per line, then the rest', async () => {
  await withDir(async (dir) => {
    const lines = await writtenLines(dir);
    const whole = recordedResult();
    assert.equal(lines.length, whole.cases.length + 3, 'head, cases, tail and the final newline');
    assert.ok(lines[0]?.startsWith('{"version":1,') && lines[0].endsWith('"cases":['), lines[0]);
    whole.cases.forEach((c, i) => {
      const line = lines[i + 1] ?? '';
      assert.deepEqual(JSON.parse(line.replace(/,$/, '')), c);
    });
    assert.match(lines.at(-2) ?? '', /^\],"summary":\{/);
    assert.equal(lines.at(-1), '');
  });
});

test('a report in lines is read with the summaries first, its cases on demand, in any order', async () => {
  await withDir(async (dir) => {
    await writtenLines(dir);
    const whole = recordedResult();
    const report = await openReport(dir);
    assert.deepEqual(
      report.cases.summaries.map((c) => [c.id, c.status]),
      whole.cases.map((c) => [c.id, c.status]),
    );
    assert.equal(report.cases.summaries[4]?.skippedReason, 'up to date (inputs and outputs unchanged)');
    const picked = [];
    for await (const c of report.cases.pick([3, 0])) picked.push(c);
    assert.deepEqual(picked, [whole.cases[3], whole.cases[0]]);
    assert.deepEqual(await readRunResult(dir), whole);
  });
});

test('a report in another layout (pretty-printed) is read whole and gives the same result', async () => {
  await withDir(async (dir) => {
    const whole = recordedResult();
    await writeFile(join(dir, 'report.json'), JSON.stringify(whole, null, 2));
    assert.deepEqual(await readRunResult(dir), whole);
    const broken = structuredClone(whole) as unknown as { cases: Array<{ status: string }> };
    broken.cases[2]!.status = 'meh';
    await writeFile(join(dir, 'report.json'), JSON.stringify(broken, null, 2));
    await assert.rejects(openReport(dir), { code: 'REPORT_INVALID', message: /at \/cases\/2\/status/ });
  });
});

test('a bad case line is named by file and line, with what is wrong in it', async () => {
  await withDir(async (dir) => {
    const lines = await writtenLines(dir);
    const file = join(dir, 'report.json');
    const write = (edit: (l: string[]) => void): Promise<void> => {
      const copy = [...lines];
      edit(copy);
      return writeFile(file, copy.join('\n'));
    };
    const rejects = async (pattern: RegExp): Promise<void> => {
      await assert.rejects(openReport(dir), (e: unknown) => {
        assert.ok(e instanceof ReportError);
        assert.equal(e.code, 'REPORT_INVALID');
        assert.ok(e.message.startsWith(file), e.message);
        assert.match(e.message, pattern);
        return true;
      });
    };

    await write((l) => (l[2] = l[2]!.replace('"status":"passed"', '"status":"fine"')));
    await rejects(/:3 is not a wbplay case result: at \/cases\/1\/steps\/0\/status, must be equal to one of/);
    await write((l) => (l[3] = l[3]!.replace('"name":', '"nom":')));
    await rejects(/:4 is not a wbplay case result: at \/cases\/2, must have required property 'name'/);
    await write((l) => (l[2] = l[2]!.slice(0, 40)));
    await rejects(/:3 is not a case in JSON/);
    await write((l) => (l[1] = l[1]!.replace(/,$/, '')));
    await rejects(/:2 has a case line without the comma/);
    await write((l) => l.splice(4));
    await rejects(/ends at line 4 before its cases close: it is truncated/);
    await write((l) => (l[6] = l[6]!.replace('"total":5', '"total":"five"')));
    await rejects(/is not a wbplay run result: at \/summary\/total/);
    await write((l) => l.push('{}'));
    await rejects(/:9 has more after the end of the report/);
  });
});

test('a report of another version is refused before its cases are read', async () => {
  await withDir(async (dir) => {
    const lines = await writtenLines(dir);
    lines[0] = lines[0]!.replace('"version":1', '"version":2');
    await writeFile(join(dir, 'report.json'), lines.join('\n'));
    await assert.rejects(openReport(dir), { code: 'REPORT_VERSION', message: /version 2/ });
  });
});
