// Workbenches a run starts itself come from a factory: how many, in which order, and that
// every one started is stopped, also when another could not start.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadPlaybook, type Plan } from '../../src/compile/index.js';
import { runPlans } from '../../src/run/runner.js';
import type { StartedWorkbench, WorkbenchFactory } from '../../src/run/workbenches.js';
import { writeFileIn } from '../helpers/files.js';
import { startTestWorkbench } from '../helpers/workbench.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-workbenches-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A playbook of `studies` cases, one cheap step each. */
async function plan(name: string, studies: number): Promise<Plan> {
  const list = Array.from({ length: studies }, (_, i) => `{ name: s${i + 1} }`).join(', ');
  return loadPlaybook(
    await writeFileIn(dir, `${name}.yaml`, `version: 1\nforeach:\n  list: [${list}]\nsteps:\n  - hide_all\n`),
  );
}

/** Reference workbenches on loopback ports; `fail` names the indexes whose start throws. */
function factory(
  count: number,
  concurrent: boolean,
  fail: readonly number[] = [],
): WorkbenchFactory & { calls: Array<[number, number]>; started: StartedWorkbench[]; stopped: string[] } {
  const calls: Array<[number, number]> = [];
  const started: StartedWorkbench[] = [];
  const stopped: string[] = [];
  return {
    count,
    concurrent,
    calls,
    started,
    stopped,
    async start(index, of) {
      calls.push([index, of]);
      if (fail.includes(index)) throw new Error(`workbench ${index + 1} would not start`);
      const wb = await startTestWorkbench();
      const label = `test #${index + 1}`;
      const handle = {
        url: wb.url,
        label,
        stop: async () => {
          stopped.push(label);
          await wb.stop();
        },
      };
      started.push(handle);
      return handle;
    },
  };
}

async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/api/v1/health`).then(
    () => true,
    () => false,
  );
}

test('a factory starts no more workbenches than there are cases, each told its place; the run uses and stops them all', async () => {
  const workbenches = factory(3, true);
  const result = await runPlans({
    plans: [await plan('two', 2)],
    workbenches,
    reporter: {},
    outputDir: join(dir, 'two-out'),
  });
  assert.equal(result.status, 'passed');
  assert.deepEqual(
    workbenches.calls.sort(),
    [
      [0, 2],
      [1, 2],
    ],
    'two cases: two workbenches of two',
  );
  for (const c of await result.cases.all())
    assert.match(c.workbench ?? '', /^test #[12]$/, 'reports name the workbench by its label');
  assert.deepEqual(workbenches.stopped.sort(), ['test #1', 'test #2']);
  for (const wb of workbenches.started) assert.equal(await answers(wb.url), false, `${wb.label} is stopped`);
});

test('the workbenches are stopped once the last case ended, before the reports are written', async () => {
  const workbenches = factory(2, true);
  const stoppedAtRunEnd: string[][] = [];
  const stoppedAtLastCase: string[][] = [];
  let ended = 0;
  await runPlans({
    plans: [await plan('early-stop', 2)],
    workbenches,
    reporter: {
      onCaseEnd: () => void (++ended === 2 && stoppedAtLastCase.push([...workbenches.stopped])),
      onRunEnd: () => void stoppedAtRunEnd.push([...workbenches.stopped].sort()),
    },
    outputDir: join(dir, 'early-stop-out'),
  });
  assert.deepEqual(stoppedAtLastCase, [[]], 'the cases ran on live workbenches');
  assert.deepEqual(stoppedAtRunEnd, [['test #1', 'test #2']]);
  assert.deepEqual(workbenches.stopped.sort(), ['test #1', 'test #2'], 'each is stopped once');
});

test('a start that fails fails the run with its error, and the workbenches that did start are stopped', async () => {
  const together = factory(2, true, [1]);
  await assert.rejects(
    runPlans({
      plans: [await plan('together', 2)],
      workbenches: together,
      reporter: {},
      outputDir: join(dir, 'together-out'),
    }),
    /workbench 2 would not start/,
  );
  assert.deepEqual(together.stopped, ['test #1']);
  assert.equal(await answers(together.started[0]!.url), false);

  // One after another (a launch picks the first free port): nothing starts after the failure.
  const inTurn = factory(3, false, [1]);
  await assert.rejects(
    runPlans({
      plans: [await plan('in-turn', 3)],
      workbenches: inTurn,
      reporter: {},
      outputDir: join(dir, 'in-turn-out'),
    }),
    /workbench 2 would not start/,
  );
  assert.deepEqual(inTurn.calls, [
    [0, 3],
    [1, 3],
  ]);
  assert.deepEqual(inTurn.stopped, ['test #1']);
});
