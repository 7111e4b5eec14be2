// What `wbplay run` claims at its end, as a user meets it: one run per output folder, a report
// that could not be written exits 3 and is named, and `Report:` names only a file this run wrote.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runExitCode } from '../../src/cli/run.js';
import { FolderLock, LOCK_FILE } from '../../src/files/folder-lock.js';
import { ReporterFanout } from '../../src/report/fan-out.js';
import { casesInMemory } from '../../src/result/case-list.js';
import { RESULT_VERSION, type RunResult } from '../../src/result/result.js';
import { makeCohort, spawnWbplay, wbplay, type Cohort } from '../helpers/cohort.js';

let dir = '';
let cohort: Cohort;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-run-record-'));
  cohort = await makeCohort(dir, 3, 150);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (out: string, ...more: string[]): Promise<Awaited<ReturnType<typeof wbplay>>> =>
  wbplay(['run', 'cohort.yaml', '--out', out, '--var', `out=${out}`, '--reporter', 'line', ...more], cohort.dir);

test('two runs started together into one folder: one runs, the other exits 2 at once naming it', async () => {
  const [a, b] = await Promise.all([run('together'), run('together')]);
  const [won, refused] = a.code === 0 ? [a, b] : [b, a];
  assert.equal(won.code, 0, won.stderr);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /error\[OUTPUT_FOLDER_IN_USE\]: .*together is in use by another run: pid \d+ on .* since .* \(wbplay run cohort\.yaml --out together/,
  );
  assert.match(refused.stderr, /hint: give this run its own folder with --out, or wait for that run to end/);
  assert.equal(refused.stdout, '', 'the refused run did nothing');
  // The winner's reports are whole, and its lock is gone.
  assert.equal(
    (JSON.parse(await readFile(join(cohort.dir, 'together', 'report.json'), 'utf8')) as RunResult).status,
    'passed',
  );
  await assert.rejects(stat(join(cohort.dir, 'together', LOCK_FILE)), { code: 'ENOENT' });
});

test('the lock of a run killed with SIGKILL is taken over by the next run, with a notice', async () => {
  const child = spawnWbplay(['run', 'cohort.yaml', '--out', 'killed', '--var', 'out=killed'], cohort.dir);
  child.stdout?.resume();
  child.stderr?.resume();
  const lock = join(cohort.dir, 'killed', LOCK_FILE);
  const deadline = Date.now() + 60_000;
  // Killed once the lock names its holder (one killed while making it is tested in files/).
  while (
    !(await readFile(lock, 'utf8').then(
      (text) => text.includes('"pid"'),
      () => false,
    ))
  ) {
    assert.ok(Date.now() < deadline, 'the run never took its folder');
    await new Promise((r) => setTimeout(r, 10));
  }
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  await stat(lock);
  const next = await run('killed');
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, new RegExp(`wbplay: took over .*${LOCK_FILE} from a run that is gone: pid ${child.pid} `));
});

test('merge-reports, accept and show-report refuse a folder a live run holds', async () => {
  const held = join(cohort.dir, 'held');
  await run('held');
  const lock = await FolderLock.take(held, 'wbplay run other.yaml');
  try {
    for (const args of [
      ['merge-reports', 'held', '--out', 'merged-held'],
      ['accept', 'held'],
      ['show-report', 'held', '--no-open'],
    ]) {
      const r = await wbplay(args, cohort.dir);
      assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
      assert.match(
        r.stderr,
        /OUTPUT_FOLDER_IN_USE.*in use by another run: pid \d+ .*\(wbplay run other\.yaml\)/,
        args[0],
      );
    }
  } finally {
    await lock.release();
  }
});

test('a report that cannot be written exits 3 and is named; Report: names the one that was', async () => {
  // A folder where report.json belongs: the atomic rename over it fails.
  await mkdir(join(cohort.dir, 'no-json', 'report.json'), { recursive: true });
  const r = await run('no-json');
  assert.equal(r.code, 3, r.stderr);
  assert.match(
    r.stderr,
    /error\[REPORTER_FAILED\]: the json reporter failed in onRunEnd: could not write .*no-json\/report\.json: .*\(EISDIR\)/,
  );
  assert.match(r.stdout, /^PASSED 3 cases/m, 'the cases themselves passed, and the summary says so');
  assert.match(r.stdout, /^Report: no-json\/report\.html$/m);
});

test('with no report written there is no Report: line, and the run exits 3', async () => {
  await mkdir(join(cohort.dir, 'none', 'report.json'), { recursive: true });
  await mkdir(join(cohort.dir, 'none', 'report.html'), { recursive: true });
  const r = await run('none');
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /html reporter failed .*report\.html/);
  assert.doesNotMatch(r.stdout + r.stderr, /^Report: /m);
});

function result(status: RunResult['status']): RunResult {
  return {
    version: RESULT_VERSION,
    startedAt: new Date().toISOString(),
    durationMs: 1,
    status,
    provenance: { playbooks: [], wbplay: '0' },
    cases: casesInMemory([]),
    summary: { total: 0, passed: 0, failed: 0, error: 0, skipped: 0 },
  };
}

test('a reporter that throws never leaves exit 0: the fan-out records it and the run exits 3', async () => {
  const fanout = new ReporterFanout([
    {
      name: 'progress',
      onRunEnd: () => {
        throw new Error('the terminal went away');
      },
    },
  ]);
  await fanout.onRunEnd(result('passed'));
  assert.deepEqual(fanout.failures, [{ reporter: 'progress', event: 'onRunEnd', message: 'the terminal went away' }]);
  assert.equal(runExitCode(result('passed'), fanout.failures.length > 0, undefined), 3);
  assert.equal(runExitCode(result('failed'), true, undefined), 3, 'missing evidence outranks a failure');
  assert.equal(runExitCode(result('failed'), false, undefined), 1);
  assert.equal(runExitCode(result('passed'), false, undefined), 0);
  assert.equal(runExitCode(result('interrupted'), true, 143), 143, 'a signal outranks the rest');
});

test('a reader that closes the pipe early (`| head`) loses the output, not the run: reports written, exit 0', async () => {
  const out = join(dir, 'out-closed-pipe');
  const child = spawnWbplay(
    ['run', 'cohort.yaml', '--out', out, '--var', `out=${out}`, '--reporter', 'line'],
    cohort.dir,
  );
  // Like `head -1`: read the first chunk, then close the read end while the run still prints.
  child.stdout!.once('data', () => child.stdout!.destroy());
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /EPIPE|Unhandled/);
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as RunResult;
  assert.equal(report.summary.passed, 3);
});
