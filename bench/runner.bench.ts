// Runner overhead: a playbook of 1,000 `set` steps run by runPlans against a reference
// workbench, against the same 1,000 setDisplay calls made through the client directly, in the
// same process, on the same server. Prints ms per step for both and the ratio runner/direct.
// Both run from the compiled package (dist/, rebuilt first).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Plan } from '../src/compile/index.js';
import type { Reporter } from '../src/result/reporter.js';
import { writeDemoData } from '../src/sim/demo-data.js';
import { builtPackage } from './built.js';

// Both sides run the compiled package, as the `wbplay` command does: code run from source
// through tsx carries a name-keeping helper call per closure, a cost the product never pays.
const { connect, loadPlaybook, runPlans, startReferenceWorkbench } = await builtPackage();

const STEPS = 1000;
const RUNS = 15;
const TARGET = 1.1;
/** Alternating values, so every call changes the node (the server cannot answer from a no-op). */
const opacity = (i: number): number => (i % 2 === 0 ? 0.4 : 0.6);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function playbook(name: string, sets: number): string {
  const lines = ['version: 1', `name: ${name}`, 'steps:', '  - load: { file: ct.nrrd, as: ct }'];
  for (let i = 0; i < sets; i++) lines.push(`  - set: { node: ct, opacity: ${opacity(i)} }`);
  return `${lines.join('\n')}\n`;
}

/** Every run starts from an empty scene: what a run left behind is removed untimed. */
async function clear(url: string): Promise<void> {
  const client = connect({ url });
  try {
    for (const n of await client.nodes.list({ hierarchy: 'toplevel' }))
      await client.nodes.remove(n.uid, { recursive: true });
  } finally {
    await client.close();
  }
}

interface RunnerTimes {
  /** runPlans from call to return. */
  total: number;
  /** From the end of the load step to the end of the last set: the steps' loop as the reporter sees it. */
  loop: number;
  failed: number;
}

async function viaRunner(plan: Plan, url: string, outputDir: string): Promise<RunnerTimes> {
  const ends: number[] = [];
  let failed = 0;
  const reporter: Reporter = {
    onStepEnd: (_c, result) => {
      ends.push(performance.now());
      if (result.status !== 'passed') failed++;
    },
  };
  const t0 = performance.now();
  await runPlans({ plans: [plan], workbenches: { urls: [url] }, reporter, outputDir });
  const total = performance.now() - t0;
  return { total, loop: ends.length > 1 ? ends.at(-1)! - ends[0]! : 0, failed };
}

/** The direct side: connect and load untimed, then the 1,000 calls timed. */
async function direct(url: string, file: string): Promise<number> {
  const client = connect({ url });
  try {
    const { node } = await client.nodes.create({ file, name: 'ct' });
    const t0 = performance.now();
    for (let i = 0; i < STEPS; i++) await client.nodes.setDisplay(node.uid, { opacity: opacity(i) });
    return performance.now() - t0;
  } finally {
    await client.close();
  }
}

/**
 * Runner side, two ways: (a) runPlans of the load + 1,000 sets minus runPlans of the load
 * alone (medians of each; the difference is the 1,000 steps with every per-step cost of the
 * runner and none of its per-run costs), and (b) the reporter's window from the load step's
 * end to the last set's end. The direct side times only its loop. Runs alternate: load-only,
 * runner, direct.
 */
export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-runner-'));
  await writeDemoData(dir);
  await writeFile(join(dir, 'sets.yaml'), playbook('Runner overhead', STEPS));
  await writeFile(join(dir, 'load.yaml'), playbook('Load only', 0));
  const sets = loadPlaybook(join(dir, 'sets.yaml'));
  const loadOnly = loadPlaybook(join(dir, 'load.yaml'));
  const wb = await startReferenceWorkbench();
  try {
    const t = { load: [] as number[], total: [] as number[], loop: [] as number[], direct: [] as number[] };
    let failed = 0;
    for (let round = 0; round <= RUNS; round++) {
      const l = await viaRunner(loadOnly, wb.url, join(dir, 'out'));
      await clear(wb.url);
      const r = await viaRunner(sets, wb.url, join(dir, 'out'));
      await clear(wb.url);
      const d = await direct(wb.url, join(dir, 'ct.nrrd'));
      await clear(wb.url);
      failed += l.failed + r.failed;
      if (round === 0) continue; // warm-up
      t.load.push(l.total);
      t.total.push(r.total);
      t.loop.push(r.loop);
      t.direct.push(d);
    }
    if (failed > 0) throw new Error(`${failed} runner steps did not pass; the figures would not mean anything`);
    const perStep = {
      subtracted: (median(t.total) - median(t.load)) / STEPS,
      loop: median(t.loop) / STEPS,
      direct: median(t.direct) / STEPS,
    };
    const ratio = perStep.subtracted / perStep.direct;
    console.log(`${STEPS} set steps (opacity, alternating), medians of ${RUNS} interleaved runs after one warm-up`);
    console.log(`direct client setDisplay:               ${(perStep.direct * 1000).toFixed(0).padStart(5)} µs/step`);
    console.log(
      `runner, run minus load-only run:        ${(perStep.subtracted * 1000).toFixed(0).padStart(5)} µs/step  (run ${median(t.total).toFixed(0)} ms, load-only run ${median(t.load).toFixed(0)} ms)`,
    );
    console.log(`runner, reporter window after the load: ${(perStep.loop * 1000).toFixed(0).padStart(5)} µs/step`);
    console.log(
      `ratio runner/direct:                    ${ratio.toFixed(2)} (reporter window: ${(perStep.loop / perStep.direct).toFixed(2)}); target <= ${TARGET} ${ratio <= TARGET ? 'MET' : 'MISSED'}`,
    );
  } finally {
    await wb.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
