// Cohort reports across shards and playbooks: the merged contact sheet, and resume keys that
// tell two playbooks of one name apart.
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { JsonReporter } from '../../src/report/json.js';
import { mergeReports } from '../../src/report/merge.js';
import type { RunResult } from '../../src/result/result.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import type { Shard } from '../../src/run/shard.js';
import { differingPixels, FAST_RETRY, makeCohort, pixels, type Cohort } from '../helpers/cohort.js';

let dir = '';
let cohort: Cohort;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-gaps-'));
  cohort = await makeCohort(dir, 4);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("merged shard reports carry the cohort's contact sheet, as the unsharded report does", async () => {
  const withSheet = join(dir, 'sheet.yaml');
  const text = await readFile(cohort.playbook, 'utf8');
  await writeFile(
    withSheet,
    text.replace(
      'steps:',
      'contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  label: "${study.name}"\n  save: "${out}/contact-sheet.png"\nsteps:',
    ),
  );
  const run = (out: string, shard?: Shard): Promise<RunResult> =>
    runPlans({
      plans: [loadPlaybook(withSheet, { vars: { out }, env: {}, displayRoot: dir })],
      workbenches: embeddedWorkbenches(1),
      reporter: new JsonReporter(out),
      outputDir: out,
      retry: FAST_RETRY,
      ...(shard ? { shard } : {}),
    });

  const whole = await run(join(dir, 'whole'));
  assert.deepEqual(
    whole.figures?.map((f) => [f.kind, f.path, f.sheet?.tiles.length]),
    [['figure', 'contact-sheet.png', 4]],
    'the unsharded run has its contact sheet',
  );
  for (const index of [1, 2]) await run(join(dir, `shard-${index}`), { index, count: 2 });
  const mergedDir = join(dir, 'merged');
  const merged = await mergeReports([join(dir, 'shard-1'), join(dir, 'shard-2')], mergedDir);

  assert.equal(merged.figures?.length, 1, 'the merged report has one contact sheet, as the unsharded one');
  const figure = resolve(mergedDir, merged.figures[0]!.path);
  await access(figure);
  const expected = await pixels(join(dir, 'whole', 'contact-sheet.png'));
  assert.equal(differingPixels(await pixels(figure), expected), 0, 'it tiles every study, as the unsharded sheet does');
});

test('two cohort playbooks with the same name resume independently in one output folder', async () => {
  const text = await readFile(cohort.playbook, 'utf8');
  const second = join(dir, 'second.yaml');
  await writeFile(second, text.replace('out: out', 'out: out-second'));
  const out = join(dir, 'two-playbooks');
  const run = (): Promise<RunResult> =>
    runPlans({
      plans: [
        loadPlaybook(cohort.playbook, { env: {}, displayRoot: dir }),
        loadPlaybook(second, { env: {}, displayRoot: dir }),
      ],
      workbenches: embeddedWorkbenches(1),
      reporter: {},
      outputDir: out,
      retry: FAST_RETRY,
    });
  const first = await run();
  assert.equal(first.summary.passed, 8);
  const again = await run();
  assert.deepEqual(
    (await again.cases.all()).map((c) => [c.playbook, c.id, c.status, c.upToDate !== undefined]),
    (await first.cases.all()).map((c) => [c.playbook, c.id, 'passed', true]),
    'every study of both playbooks is up to date',
  );
});
