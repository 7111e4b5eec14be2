// Soak: a seeded cohort on two reference workbenches that inject every fault they know on every
// method, DELETE included. Every study must pass with the pixels of a fault-free run, and the
// workbenches must hold no duplicate and no leftover node.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import type { RunResult } from '../../src/result/result.js';
import type { RetryPolicy } from '../../src/run/retry.js';
import { runPlans } from '../../src/run/runner.js';
import type { WorkbenchEvent } from '../../src/sim/event-log.js';
import { cohortPlan, differingPixels, FAST_RETRY, makeCohort, pixels, SHOTS, type Cohort } from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

const STUDIES = 6;
const SEEDS = [11, 23, 47, 71];
/**
 * Every kind on every method, about one request in eleven failing; 429 asks for no wait so the
 * test stays short. A step of four requests then fails an attempt about one time in three, so
 * the policy allows nine attempts.
 */
const FAULTS =
  '503@rate=0.02;429=0@rate=0.02;drop-before@rate=0.02;drop-after@rate=0.02;stall@rate=0.01;latency=0..4@rate=0.2;' +
  // The clean-up between studies sends few DELETEs (one a study, and how many each workbench
  // sends depends on which studies it wins): they get their own, higher rates, and the first
  // DELETE on each workbench always loses its answer after acting, so every seed hits the clean-up.
  'drop-after@DELETE #1;503@DELETE rate=0.2;drop-after@DELETE rate=0.2;stall@DELETE rate=0.1';
const RETRY: RetryPolicy = { retries: 8, minDelayMs: 5, maxDelayMs: 20, factor: 1.5 };
const REQUEST_TIMEOUT_MS = 250;
const STEP_TIMEOUT_MS = 20_000;

let dir = '';
let cohort: Cohort;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-soak-'));
  cohort = await makeCohort(dir, STUDIES);
  const clean = await startTestWorkbench();
  try {
    const out = join(dir, 'clean');
    const result = await runPlans({
      plans: [cohortPlan(cohort, out)],
      workbenches: { urls: [clean.url] },
      reporter: {},
      outputDir: out,
      retry: FAST_RETRY,
    });
    assert.equal(result.status, 'passed');
  } finally {
    await clean.stop();
  }
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The nodes left on a workbench; the faults hit this question too, so it is asked until answered. */
async function nodesOf(url: string): Promise<string[]> {
  const client = connect({ url });
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await client.nodes.list()).map((n) => n.uid);
      } catch (err) {
        if (attempt >= 10) throw err;
      }
    }
  } finally {
    await client.close();
  }
}

for (const seed of SEEDS) {
  test(`seed ${seed}: every study passes under faults on every method, with the pixels of a fault-free run and no leftover node`, async (t) => {
    const workbenches = await Promise.all(
      [1, 2].map((k) => startTestWorkbench({ faults: `seed=${seed * 10 + k};${FAULTS}` })),
    );
    t.after(() => Promise.all(workbenches.map((wb) => wb.stop())));
    // Every injected fault of the run; the logs themselves keep only the latest requests.
    const faults: WorkbenchEvent[] = [];
    for (const wb of workbenches)
      wb.events.subscribe((e) => {
        if (e.fault !== undefined && e.fault !== 'latency') faults.push(e);
      });
    const out = join(dir, `seed-${seed}`);
    const started = performance.now();
    const result: RunResult = await runPlans({
      plans: [cohortPlan(cohort, out)],
      workbenches: { urls: workbenches.map((wb) => wb.url) },
      reporter: {},
      outputDir: out,
      retry: RETRY,
      timeoutMs: STEP_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    const elapsed = performance.now() - started;
    const problems = (await result.cases.all()).flatMap((c) =>
      c.steps.filter((s) => s.error).map((s) => `${c.name} step ${s.index}: ${s.error!.code} ${s.error!.message}`),
    );
    assert.deepEqual(
      (await result.cases.all()).map((c) => c.status),
      Array(STUDIES).fill('passed'),
      problems.join('\n'),
    );

    for (const study of cohort.studies) {
      for (const shot of SHOTS) {
        const clean = await pixels(join(dir, 'clean', study.name, shot));
        assert.equal(differingPixels(await pixels(join(out, study.name, shot)), clean), 0, `${study.name}/${shot}`);
      }
    }
    // Each workbench holds the last study it ran, once: two nodes, or none if it ran nothing.
    for (const wb of workbenches) {
      const uids = await nodesOf(wb.url);
      const ran = (await result.cases.all()).some((c) => c.workbench?.startsWith(wb.url));
      assert.equal(uids.length, ran ? 2 : 0, `${wb.url} holds ${uids.length} nodes`);
    }
    // The worst case the timeouts allow: every request of every step stalls to its timeout on every attempt.
    const steps = (await result.cases.all()).reduce((n, c) => n + c.steps.length, 0);
    assert.ok(
      elapsed < steps * (RETRY.retries + 1) * (REQUEST_TIMEOUT_MS + RETRY.maxDelayMs) * 3,
      `${Math.round(elapsed)} ms`,
    );

    const byKind = new Map<string, number>();
    for (const f of faults) byKind.set(f.fault!, (byKind.get(f.fault!) ?? 0) + 1);
    const deletes = faults.filter((f) => f.method === 'DELETE').length;
    t.diagnostic(
      `seed ${seed}: survived ${faults.length} faults (${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}; ${deletes} on DELETE) in ${Math.round(elapsed)} ms`,
    );
    assert.ok(deletes > 0, 'the seed injected faults into the clean-up');
  });
}
