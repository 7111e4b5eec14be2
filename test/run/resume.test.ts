// Resuming a cohort from the journal of its output folder: studies whose inputs and outputs
// are unchanged are skipped, a changed input or a lost output runs that study again, --force
// runs all; a real run killed with SIGKILL mid-cohort completes on the next run.
import { openReport } from '../../src/report/read-report.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunResult } from '../../src/result/result.js';
import { JOURNAL_NAME, readJournalText, type StudyRecord } from '../../src/run/journal.js';
import { runPlans, type RunOptions } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import {
  cohortPlan,
  FAST_RETRY,
  makeCohort,
  pixels,
  SHOTS,
  spawnWbplay,
  wbplay,
  type Cohort,
} from '../helpers/cohort.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-resume-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface ManifestData {
  studies: Record<string, StudyRecord>;
}

/** The studies the output folder's journal records as done. */
async function readManifest(out: string): Promise<ManifestData> {
  return { studies: Object.fromEntries(readJournalText(await readFile(join(out, JOURNAL_NAME), 'utf8')).studies) };
}

const readReport = (out: string): Promise<RunResult> => openReport(out);
/** A study's manifest key: the playbook as seen from the output folder, and the case id. */
const key = (cohort: Cohort, study: string, out: string): string =>
  `${relative(out, cohort.playbook).split(sep).join('/')}#${study}`;
const sha256 = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/**
 * `ran`: cases that ran and passed; `upToDate`: cases the journal found up to date, reported
 * with the passed result of the run that made them (every step passed, the screenshots as
 * artefacts). Nothing else is allowed.
 */
async function outcome(result: RunResult): Promise<{ ran: string[]; upToDate: string[] }> {
  const ran: string[] = [];
  const upToDate: string[] = [];
  for (const c of await result.cases.all()) {
    if (c.status === 'passed' && c.upToDate === undefined) ran.push(c.id);
    else if (
      c.status === 'passed' &&
      c.upToDate !== undefined &&
      !Number.isNaN(Date.parse(c.upToDate.finishedAt)) &&
      c.steps.every((s) => s.status === 'passed') &&
      c.steps.flatMap((s) => s.artefacts.filter((a) => a.kind === 'screenshot')).length === SHOTS.length
    )
      upToDate.push(c.id);
    else
      assert.fail(`${c.id}: ${c.status} (${JSON.stringify(c.steps.map((s) => [s.status, s.skippedReason, s.error]))})`);
  }
  return { ran, upToDate };
}

/** Every study of the cohort is in the manifest with exactly its screenshots, hashed as they are on disk. */
async function assertManifestMatchesDisk(cohort: Cohort, out: string): Promise<void> {
  const manifest = await readManifest(out);
  assert.deepEqual(Object.keys(manifest.studies).sort(), cohort.studies.map((s) => key(cohort, s.name, out)).sort());
  for (const s of cohort.studies) {
    const record = manifest.studies[key(cohort, s.name, out)]!;
    assert.deepEqual(
      Object.keys(record.outputs).sort(),
      SHOTS.map((shot) => join(out, s.name, shot)).sort(),
      `outputs of ${s.name}`,
    );
    for (const [path, hash] of Object.entries(record.outputs)) {
      assert.equal(await sha256(path), hash, `${path} is what the manifest says`);
      const image = await pixels(path);
      assert.ok(image.width > 0 && image.height > 0, `${path} is a PNG`);
    }
  }
}

test('resume: up to date studies are skipped; a changed data file or a lost output runs that study only; force runs all', async () => {
  const cohort = await makeCohort(join(dir, 'resume'), 3);
  const out = join(cohort.dir, 'out');
  const [one, two, three] = cohort.studies.map((s) => s.name) as [string, string, string];
  // Compiled again for every run, as a new `wbplay run` would.
  const run = (extra: Partial<RunOptions> = {}): Promise<RunResult> =>
    runPlans({
      plans: [cohortPlan(cohort, out)],
      workbenches: embeddedWorkbenches(1),
      reporter: {},
      outputDir: out,
      retry: FAST_RETRY,
      ...extra,
    });
  const mtimes = async (study: string): Promise<number[]> =>
    Promise.all(SHOTS.map(async (shot) => (await stat(join(out, study, shot))).mtimeMs));

  assert.deepEqual(await outcome(await run()), { ran: [one, two, three], upToDate: [] });
  await assertManifestMatchesDisk(cohort, out);
  const before = new Map(await Promise.all([one, two, three].map(async (s) => [s, await mtimes(s)] as const)));

  const again = await run();
  assert.deepEqual(await outcome(again), { ran: [], upToDate: [one, two, three] });
  assert.deepEqual(again.summary, { total: 3, passed: 3, failed: 0, error: 0, skipped: 0, upToDate: 3 });
  assert.equal(again.status, 'passed');
  for (const s of [one, two, three])
    assert.deepEqual(await mtimes(s), before.get(s), `${s}'s screenshots were not written again`);

  // Another valid CT in place of study two's: its inputs changed, nobody else's did.
  await copyFile(join(cohort.data, three, 'ct.nrrd'), join(cohort.data, two, 'ct.nrrd'));
  assert.deepEqual(await outcome(await run()), { ran: [two], upToDate: [one, three] });
  assert.notDeepEqual(await mtimes(two), before.get(two), 'study two wrote its screenshots again');
  await assertManifestMatchesDisk(cohort, out);
  assert.deepEqual(
    await outcome(await run()),
    { ran: [], upToDate: [one, two, three] },
    'and is up to date after that',
  );

  await rm(join(out, three, 'sagittal.png'));
  assert.deepEqual(await outcome(await run()), { ran: [three], upToDate: [one, two] });
  await assertManifestMatchesDisk(cohort, out);

  assert.deepEqual(await outcome(await run({ force: true })), { ran: [one, two, three], upToDate: [] });
  await assertManifestMatchesDisk(cohort, out);
});

test('resume: a study that erred is not recorded and runs again on the next run', async () => {
  const cohort = await makeCohort(join(dir, 'erred'), 2);
  const out = join(cohort.dir, 'out');
  const [one, two] = cohort.studies.map((s) => s.name) as [string, string];
  const good = await readFile(join(cohort.data, two, 'tumour-label.nrrd'));
  await writeFile(join(cohort.data, two, 'tumour-label.nrrd'), 'garbage, not an image\n'.repeat(20));
  const run = (): Promise<RunResult> =>
    runPlans({
      plans: [cohortPlan(cohort, out)],
      workbenches: embeddedWorkbenches(1),
      reporter: {},
      outputDir: out,
      retry: FAST_RETRY,
    });

  const first = await run();
  assert.deepEqual(
    (await first.cases.all()).map((c) => [c.id, c.status]),
    [
      [one, 'passed'],
      [two, 'error'],
    ],
  );
  assert.deepEqual(
    Object.keys((await readManifest(out)).studies),
    [key(cohort, one, out)],
    'only the study that passed is recorded',
  );

  await writeFile(join(cohort.data, two, 'tumour-label.nrrd'), good);
  assert.deepEqual(await outcome(await run()), { ran: [two], upToDate: [one] });
  await assertManifestMatchesDisk(cohort, out);
});

test('resume after SIGKILL: a real run with two workers killed mid-cohort completes on the next run without redoing finished studies', async (t) => {
  // Each study waits a little so the kill lands between the first and the last study; two
  // workers so the manifest is being written for two studies when the kill comes.
  const cohort = await makeCohort(join(dir, 'killed'), 6, 300);
  const out = join(cohort.dir, 'out');
  const args = ['run', 'cohort.yaml', '--out', 'out', '--reporter', 'line', '--retries', '1', '--workers', '2'];

  const child = spawnWbplay(args, cohort.dir);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  t.after(() => {
    if (!done) child.kill('SIGKILL');
  });

  // Kill once the manifest holds at least one study but not all of them.
  const deadline = Date.now() + 60_000;
  for (;;) {
    assert.ok(!done, `the run ended before it could be killed: ${stderr}`);
    assert.ok(Date.now() < deadline, 'no study was recorded within a minute');
    const n = await readManifest(out).then(
      (m) => Object.keys(m.studies).length,
      () => 0,
    );
    if (n >= 1 && n < cohort.studies.length) break;
    await sleep(10);
  }
  child.kill('SIGKILL');
  assert.deepEqual(await exited, { code: null, signal: 'SIGKILL' });

  // What the killed run claims as done: only studies whose outputs are all there as hashed.
  const killed = await readManifest(out);
  const recorded = Object.keys(killed.studies).sort();
  assert.ok(recorded.length >= 1 && recorded.length < cohort.studies.length, `recorded ${recorded.join(', ')}`);
  for (const [study, record] of Object.entries(killed.studies)) {
    assert.equal(Object.keys(record.outputs).length, SHOTS.length, `${study} claims all its screenshots`);
    for (const [path, hash] of Object.entries(record.outputs))
      assert.equal(await sha256(path), hash, `${path} as the killed run recorded it`);
  }

  const rerun = await wbplay(args, cohort.dir);
  assert.equal(rerun.code, 0, rerun.stderr);
  const { ran, upToDate } = await outcome(await readReport(out));
  assert.deepEqual(
    upToDate.map((id) => key(cohort, id, out)).sort(),
    recorded,
    'the studies recorded before the kill are skipped',
  );
  assert.deepEqual([...ran, ...upToDate].sort(), cohort.studies.map((s) => s.name).sort(), 'every other study ran');
  await assertManifestMatchesDisk(cohort, out);
  for (const [study, record] of Object.entries(killed.studies)) {
    assert.deepEqual(
      (await readManifest(out)).studies[study]?.outputs,
      record.outputs,
      `${study}'s outputs are the ones written before the kill`,
    );
  }
});

// A CI job often runs quietly: its summary goes to stderr and must say INTERRUPTED there as well.
for (const [signal, code, who, output] of [
  ['SIGTERM', 143, 'a pod evicted, a CI job cancelled', '--quiet'],
  ['SIGINT', 130, 'Ctrl-C', '--reporter=line'],
] as const) {
  test(`${signal} (${who}, ${output}): the run stops with exit ${code}, says INTERRUPTED, writes its report; the next run completes the rest`, async () => {
    const cohort = await makeCohort(join(dir, `stopped-${signal}`), 4, 300);
    const out = join(cohort.dir, 'out');
    const args = ['run', 'cohort.yaml', '--out', 'out', output, '--retries', '1'];
    const child = spawnWbplay(args, cohort.dir);
    let said = '';
    const summaryStream = output === '--quiet' ? child.stderr : child.stdout;
    summaryStream?.on('data', (chunk: Buffer) => (said += chunk.toString()));
    (output === '--quiet' ? child.stdout : child.stderr)?.resume();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const deadline = Date.now() + 60_000;
    while (
      (await readManifest(out).then(
        (m) => Object.keys(m.studies).length,
        () => 0,
      )) === 0
    ) {
      assert.ok(Date.now() < deadline, 'no study was recorded within a minute');
      await sleep(10);
    }
    child.kill(signal);
    assert.deepEqual(await exited, { code, signal: null });
    assert.match(
      said,
      new RegExp(`^INTERRUPTED by ${signal} \\d+ cases: \\d+ passed, 0 failed, 0 errors, \\d+ skipped`, 'm'),
    );
    const stopped = await readReport(out);
    assert.equal(stopped.status, 'interrupted');
    assert.equal(stopped.signal, signal);
    assert.equal(
      (await stopped.cases.all()).length,
      cohort.studies.length,
      'the report of the stopped run lists every study',
    );
    assert.ok(
      (await stopped.cases.all()).some((c) => c.status !== 'passed'),
      'not every study ran',
    );
    const recorded = Object.keys((await readManifest(out)).studies).sort();
    assert.deepEqual(
      (await stopped.cases.all())
        .filter((c) => c.status === 'passed')
        .map((c) => key(cohort, c.id, out))
        .sort(),
      recorded,
      'the studies that passed are the ones recorded',
    );

    const rerun = await wbplay(args, cohort.dir);
    assert.equal(rerun.code, 0, rerun.stderr);
    const { upToDate } = await outcome(await readReport(out));
    assert.deepEqual(upToDate.map((id) => key(cohort, id, out)).sort(), recorded);
    await assertManifestMatchesDisk(cohort, out);
  });
}

test('resume: an up-to-date study keeps its last result in the report; a journal line without one runs its study again', async () => {
  const cohort = await makeCohort(join(dir, 'record'), 2);
  const out = join(cohort.dir, 'out');
  const [one, two] = cohort.studies.map((s) => s.name) as [string, string];
  const run = (): Promise<RunResult> =>
    runPlans({
      plans: [cohortPlan(cohort, out)],
      workbenches: embeddedWorkbenches(1),
      reporter: {},
      outputDir: out,
      retry: FAST_RETRY,
    });
  const first = await (await run()).cases.all();
  const journal = await readManifest(out);

  const again = await run();
  assert.equal(again.summary.upToDate, 2);
  const resumed = await again.cases.all();
  for (const [i, c] of resumed.entries()) {
    const { upToDate, ...rest } = c;
    // Status, steps, artefacts, durations and workbench: all as the run that made it reported them.
    assert.deepEqual(rest, first[i], `${c.id} is reported as it was`);
    assert.equal(
      upToDate?.finishedAt,
      journal.studies[key(cohort, c.id, out)]!.finishedAt,
      'since the run that made it',
    );
  }

  // A line as an earlier version wrote it (hashes, no result): up to date by its hashes, but
  // the report could not show it, so it runs again and is recorded with its result.
  const path = join(out, JOURNAL_NAME);
  const lines = (await readFile(path, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  await writeFile(
    path,
    lines.map((l) => JSON.stringify(l.study === key(cohort, two, out) ? { ...l, result: undefined } : l)).join('\n') +
      '\n',
  );
  assert.deepEqual(await outcome(await run()), { ran: [two], upToDate: [one] });
  assert.deepEqual(await outcome(await run()), { ran: [], upToDate: [one, two] });
});
