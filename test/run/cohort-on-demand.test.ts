// A cohort's cases are compiled as they run, not all up front: the plan keeps each study's
// name and fields, and a run compiles a case when its turn comes. What is counted here is
// how many steps were built into a case (a step's description is made exactly then) by the
// time the first case starts, and what a case that no longer compiles at its turn gives.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import type { CaseResult } from '../../src/result/result.js';
import { OUTLINED_CASES } from '../../src/run/run-item.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { registry } from '../../src/steps/registry.js';

const dir = await mkdtemp(join(tmpdir(), 'wbplay-on-demand-'));
after(() => rm(dir, { recursive: true, force: true }));

/** Counts the steps of kind hide_all built into a case, while `body` runs. */
async function countingBuiltSteps<T>(body: (built: () => number) => Promise<T>): Promise<T> {
  const describe = registry.hide_all.describe;
  let built = 0;
  registry.hide_all.describe = (args) => (built++, describe(args));
  try {
    return await body(() => built);
  } finally {
    registry.hide_all.describe = describe;
  }
}

test("a cohort's cases are compiled as they run: one case compiled when the first starts, every case reported", async () => {
  const studies = OUTLINED_CASES + 20;
  const file = join(dir, 'many.yaml');
  const names = Array.from({ length: studies }, (_, i) => `s${String(i).padStart(3, '0')}`);
  await writeFile(file, `version: 1\nname: Many\nforeach:\n  list: [${names.join(', ')}]\nsteps:\n  - hide_all\n`);
  await countingBuiltSteps(async (built) => {
    const plan = loadPlaybook(file);
    assert.equal(plan.cases.length, studies);
    assert.equal(built(), 0, 'the compile checks every study but builds no case');
    let atFirstStart: number | undefined;
    const ended: CaseResult[] = [];
    const result = await runPlans({
      plans: [plan],
      workbenches: embeddedWorkbenches(1),
      reporter: {
        onCaseStart: () => void (atFirstStart ??= built()),
        onCaseEnd: (r) => void ended.push(r),
      },
      outputDir: join(dir, 'out-many'),
    });
    assert.equal(atFirstStart, 1, 'only the first case is compiled when it starts');
    assert.equal(result.status, 'passed');
    assert.equal(result.summary.passed, studies);
    // Each case carries its own steps in its events and its result, in the report as well.
    assert.deepEqual(
      ended.map((r) => r.steps.map((s) => s.description)),
      names.map(() => ['hide all nodes']),
    );
    const all = await result.cases.all();
    assert.deepEqual(
      all.map((c) => c.id),
      names,
    );
    assert.ok(all.every((c) => c.steps.length === 1 && c.steps[0]!.status === 'passed'));
  });
});

test('a study whose data file is gone by its turn errs alone, with what its compile found', async () => {
  const data = join(dir, 'data');
  await writeDemoData(data, { cohort: 3 });
  const file = join(data, 'gone.yaml');
  await writeFile(
    file,
    'version: 1\nname: Gone\nforeach:\n  csv: studies.csv\nsteps:\n  - hide_all\n  - load: { file: "${study.path}/ct.nrrd", as: ct }\n',
  );
  const plan = loadPlaybook(file);
  await rm(join(data, 'study-002', 'ct.nrrd'));
  const result = await runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: join(dir, 'out-gone'),
  });
  const [a, b, c] = await result.cases.all();
  assert.equal(result.status, 'error');
  assert.deepEqual([a?.status, b?.status, c?.status], ['passed', 'error', 'passed']);
  assert.equal(b?.steps.length, 1);
  assert.equal(b?.steps[0]?.kind, 'compile');
  assert.equal(b?.steps[0]?.error?.code, 'FILE_NOT_FOUND');
  assert.match(b?.steps[0]?.error?.message ?? '', /study-002.ct\.nrrd/);
  assert.equal(b?.steps[0]?.span.line, 7);
});
