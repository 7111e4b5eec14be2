// The Slurm example for real: a single-node Slurm cluster from Debian's packages runs
// examples/slurm/submit.sh on a 12-study demo cohort in 3 shards, as docs/cohorts.md shows it
// (every ```bash command of that page runs here, in order); the merged report holds every study
// once, passed, and the contact sheet all 12. Then a task is cancelled mid-run: the merge job is
// cancelled with it, no merged report claims the cohort, and `submit.sh` again completes it,
// redoing only the studies the cancelled shard had not finished. Where the machine cannot run
// Slurm (not root, packages missing) the test says so and is skipped; with CI=true it fails.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { access, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readRunResult } from '../../src/report/read-report.js';
import type { CaseResult, RunResultTree } from '../../src/result/result.js';
import { readJournalText, JOURNAL_NAME } from '../../src/run/journal.js';
import { pixels, root, wbplay, WBPLAY_ARGV } from '../helpers/cohort.js';
import { parseCommand } from '../helpers/doc-commands.js';
import { standInMitk } from '../helpers/stand-in-mitk.js';
import { slurmUnavailable, startSlurm, type SlurmCluster } from '../helpers/slurm.js';

const unavailable = await slurmUnavailable();
const skip =
  unavailable !== undefined && process.env.CI !== 'true' ? `no Slurm on this machine: ${unavailable}` : false;

let cluster: SlurmCluster | undefined;
let project = '';
after(async () => {
  await cluster?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

/** The ```bash commands of a page, block by block. */
function bashBlocks(page: string): string[][] {
  return [...page.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
}

interface Shell {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(command: string, cwd: string, env: Record<string, string>): Promise<Shell> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** The job ids submit.sh prints. */
function jobIds(stdout: string): { array: string; merge: string } {
  const array = /^array (\d+):/m.exec(stdout)?.[1];
  const merge = /^merge (\d+):/m.exec(stdout)?.[1];
  assert.ok(array && merge, `submit.sh prints the job ids: ${stdout}`);
  return { array, merge };
}

/** Study id → when it finished, from a shard folder's journal. */
async function journal(dir: string): Promise<Map<string, string>> {
  const text = await readFile(join(dir, JOURNAL_NAME), 'utf8').catch(() => '');
  const { studies } = readJournalText(text);
  return new Map([...studies.values()].map((l) => [l.study.slice(l.study.lastIndexOf('#') + 1), l.finishedAt]));
}

/** Every study once, passed, with its four screenshots on disk; the contact sheet tiles all of them. */
async function assertWholeCohort(merged: string, studies: readonly string[]): Promise<RunResultTree> {
  const report = await readRunResult(merged);
  assert.equal(report.status, 'passed', `merged report of ${merged}`);
  assert.deepEqual(report.cases.map((c) => c.id).sort(), [...studies].sort(), 'every study once');
  for (const c of report.cases) {
    assert.equal(c.status, 'passed', c.id);
    const shots = c.steps.flatMap((s) => s.artefacts.filter((a) => a.kind === 'screenshot'));
    assert.equal(shots.length, 4, `${c.id} has its four screenshots`);
    for (const a of shots) await access(resolve(merged, a.path));
  }
  const sheet = (report.figures ?? []).find((f) => f.sheet);
  assert.ok(sheet?.sheet, 'a contact sheet');
  assert.deepEqual(sheet.sheet.tiles.map((t) => t.case).sort(), [...studies].sort(), 'the sheet tiles every study');
  const image = await pixels(resolve(merged, sheet.path));
  assert.ok(image.width >= 4 * 64 && image.height >= 3 * 64, `a sheet of 12 tiles: ${image.width}×${image.height}`);
  // The HTML report shows every study, those up to date marked as such.
  const html = await readFile(join(merged, 'report.html'), 'utf8');
  assert.equal(
    html.match(/<details class="case passed" data-status="passed"/g)?.length,
    12,
    'the HTML report shows every study',
  );
  assert.equal(
    html.match(/<span class="up-to-date"/g)?.length ?? 0,
    report.cases.filter((c) => c.upToDate).length,
    'and marks those up to date',
  );
  return report;
}

const upToDate = (cases: readonly CaseResult[]): string[] =>
  cases
    .filter((c) => c.upToDate)
    .map((c) => c.id)
    .sort();

test(
  'Slurm: submit.sh runs a cohort as a job array and a merge job; a cancelled task is finished by submitting again',
  { skip, timeout: 420_000 },
  async () => {
    if (unavailable) assert.fail(`CI=true, but this machine cannot run Slurm: ${unavailable}`);
    cluster = await startSlurm();
    project = await mkdtemp(join(tmpdir(), 'wbplay-slurm-project-'));
    for (const folder of ['playbooks', 'schemas', 'examples'])
      await cp(join(root, folder), join(project, folder), { recursive: true });
    const env: Record<string, string> = { ...cluster.env, WBPLAY: WBPLAY_ARGV.join(' '), HOME: project };
    const run = async (command: string): Promise<Shell> => {
      if (command.startsWith('npx wbplay') || /^[A-Z_]+=\S+ npx wbplay/.test(command)) {
        const { env: own, args } = parseCommand(command);
        return wbplay(args, project, { ...env, ...own });
      }
      return sh(command, project, env);
    };

    // The page's commands, in order: submit, watch, and after the queue empties, submit again.
    const blocks = bashBlocks(await readFile(join(root, 'docs', 'cohorts.md'), 'utf8'));
    assert.equal(blocks.length, 2, 'docs/cohorts.md shows a submission and a resubmission');
    let studies: string[] = [];
    const ids: Array<{ array: string; merge: string }> = [];
    for (const block of blocks) {
      for (const command of block) {
        const r = await run(command);
        assert.equal(r.code, 0, `${command}\n${r.stdout}\n${r.stderr}`);
        if (command.includes('submit.sh')) ids.push(jobIds(r.stdout));
      }
      await cluster.drained(180_000);
      if (studies.length === 0) {
        const csv = (await readFile(join(project, 'data', 'cohort', 'studies.csv'), 'utf8')).trim().split('\n');
        const column = csv[0]!.split(',').indexOf('name');
        studies = csv.slice(1).map((l) => l.split(',')[column]!);
        assert.equal(studies.length, 12);
      }
      await assertWholeCohort(join(project, 'out', 'slurm', 'merged'), studies);
    }
    assert.equal(ids.length, 2);
    // The resubmission found every study up to date and reported each with its result and images.
    const resumed = await readRunResult(join(project, 'out', 'slurm', 'merged'));
    assert.deepEqual(upToDate(resumed.cases), [...studies].sort());
    assert.deepEqual(resumed.summary, { total: 12, passed: 12, failed: 0, error: 0, skipped: 0, upToDate: 12 });
    assert.match(
      await readFile(join(project, 'out', 'slurm', 'logs', 'merge.log'), 'utf8'),
      /12 passed \(12 up to date\)/,
    );

    // A cohort whose studies take a while (a wait step in each), so a task can be cancelled mid-run.
    const playbook = (await readFile(join(project, 'playbooks', 'cohort.yaml'), 'utf8')).replace(
      '  - screenshot: { of: stdmulti/axial',
      '  - wait: { ms: 1500 }\n  - screenshot: { of: stdmulti/axial',
    );
    assert.match(playbook, /wait: \{ ms: 1500 \}/);
    await writeFile(join(project, 'playbooks', 'cohort-slow.yaml'), playbook);
    const out = join(project, 'out', 'cancel');
    const submit = `WBPLAY_COHORT=data/cohort examples/slurm/submit.sh playbooks/cohort-slow.yaml out/cancel 3`;
    const first = await run(submit);
    assert.equal(first.code, 0, first.stderr);
    const job = jobIds(first.stdout);

    // Cancel task 1 once it has finished a study: its studies take 1.5 s each, so the rest are still to come.
    const deadline = Date.now() + 120_000;
    while ((await journal(join(out, 'shard-1'))).size === 0) {
      assert.ok(Date.now() < deadline, 'shard 1 finished no study within two minutes');
      await sleep(100);
    }
    await cluster.client('/usr/bin/scancel', [`${job.array}_1`]);
    await cluster.drained(180_000);

    const mergeJob = await cluster.client('/usr/bin/scontrol', ['show', 'job', job.merge]);
    assert.match(mergeJob, /JobState=CANCELLED/, 'the merge job was cancelled with the task it waited for');
    assert.match(mergeJob, /Reason=DependencyNeverSatisfied/);
    await assert.rejects(access(join(out, 'merged', 'report.json')), 'no merged report claims the cohort');
    const shard1 = await readRunResult(join(out, 'shard-1'));
    assert.equal(shard1.status, 'interrupted', 'the cancelled task wrote its report on SIGTERM');
    assert.equal(shard1.signal, 'SIGTERM');
    const before = [1, 2, 3].map((k) => journal(join(out, `shard-${k}`)));
    const [done1, done2, done3] = await Promise.all(before);
    const notDone = shard1.cases.map((c) => c.id).filter((id) => !done1!.has(id));
    assert.ok(done1!.size >= 1 && notDone.length >= 1, `cancelled mid-run: ${done1!.size} done, ${notDone.length} not`);
    assert.equal(done1!.size + notDone.length + done2!.size + done3!.size, 12);

    // Merged by hand, the incomplete set says which studies did not run, and claims no whole cohort.
    const partial = await wbplay(
      ['merge-reports', 'out/cancel/shard-1', 'out/cancel/shard-2', 'out/cancel/shard-3', '--out', 'out/partial'],
      project,
    );
    assert.equal(partial.code, 1, partial.stderr);
    assert.match(
      partial.stderr,
      new RegExp(`incomplete: a shard was interrupted, so ${notDone.length} of the 12 cases did not run`),
    );
    for (const id of notDone) assert.ok(partial.stderr.includes(id), `names ${id}: ${partial.stderr}`);
    const partialReport = await readRunResult(join(project, 'out', 'partial'));
    assert.equal(partialReport.status, 'interrupted');
    assert.ok(partialReport.summary.passed < 12);
    const twoShards = await wbplay(
      ['merge-reports', 'out/cancel/shard-2', 'out/cancel/shard-3', '--out', 'out/two'],
      project,
    );
    assert.equal(twoShards.code, 2);
    assert.match(
      twoShards.stderr,
      new RegExp(
        `shard 1 of 3 has no report among those given: ${shard1.cases.length} of the run's 12 cases are missing`,
      ),
    );
    await assert.rejects(access(join(project, 'out', 'two', 'report.json')));

    // Submitted again: the cohort completes, and only what the cancelled shard had not finished ran.
    const again = await run(submit);
    assert.equal(again.code, 0, again.stderr);
    await cluster.drained(180_000);
    const merged = await assertWholeCohort(join(out, 'merged'), studies);
    assert.deepEqual(
      merged.cases
        .filter((c) => !c.upToDate)
        .map((c) => c.id)
        .sort(),
      [...notDone].sort(),
      'only the studies the cancelled task had not finished ran again',
    );
    assert.equal(merged.summary.upToDate, 12 - notDone.length);
    const [after1, after2, after3] = await Promise.all([1, 2, 3].map((k) => journal(join(out, `shard-${k}`))));
    assert.deepEqual(after2, done2, 'shard 2 did nothing again');
    assert.deepEqual(after3, done3, 'shard 3 did nothing again');
    for (const [id, finished] of done1!) assert.equal(after1!.get(id), finished, `${id} of shard 1 was not redone`);
    assert.equal(after1!.size, done1!.size + notDone.length);
    assert.match(
      await readFile(join(out, 'logs', 'merge.log'), 'utf8'),
      new RegExp(`12 passed \\(${12 - notDone.length} up to date\\)`),
    );

    // The real-MITK variant: each task launches its own Workbench (a stand-in MITK program that
    // serves the reference workbench where the preferences override says) under xvfb-run, the
    // node having no display; its memory request is lowered when submitting, as the docs say.
    const mitk = await sh(
      'WBPLAY_COHORT=data/cohort examples/slurm/submit.sh playbooks/cohort.yaml out/mitk 2',
      project,
      {
        ...env,
        MITK_WORKBENCH: await standInMitk(project),
        WBPLAY_SBATCH: 'examples/slurm/cohort-mitk.sbatch',
        SBATCH_MEM_PER_NODE: '1G',
        STAND_IN_LOG: join(project, 'stand-in.log'),
      },
    );
    assert.equal(mitk.code, 0, mitk.stderr);
    await cluster.drained(180_000);
    const mitkOut = join(project, 'out', 'mitk');
    const launched = await assertWholeCohort(join(mitkOut, 'merged'), studies).catch(async (err: Error) => {
      const logs = await Promise.all(
        ['shard-1', 'shard-2', 'merge'].map((l) => readFile(join(mitkOut, 'logs', `${l}.log`), 'utf8').catch(() => '')),
      );
      throw new Error(`${err.message}\n${logs.join('\n')}`);
    });
    // Each task launched one Workbench (the stand-in logs each start) and ran its studies on it.
    const starts = (await readFile(join(project, 'stand-in.log'), 'utf8')).trim().split('\n');
    assert.equal(starts.length, 2, `one Workbench per task: ${starts.join(', ')}`);
    for (const c of launched.cases) assert.match(c.workbench ?? '', /^launched http:\/\/localhost:80\d\d$/, c.id);
  },
);
