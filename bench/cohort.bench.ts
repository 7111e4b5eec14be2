// A cohort run end to end: 40 demo studies (WBPLAY_BENCH_COHORT=N for N), four window
// screenshots each, on one embedded reference workbench and on two (worker threads). Every run
// is a process of its own, as every `wbplay run` is, so neither count finds code the other has
// already warmed up. Prints studies per minute for both, the speed-up, and the share of wall
// time spent outside workbench calls.
// Beside them, two shards of the cohort run side by side, each a process with one workbench:
// two runs that share nothing, so what they gain over one is what this machine offers a second
// workbench for this work.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { writeDemoData } from '../src/sim/demo-data.js';
import { buildPackage } from './built.js';
import type { CohortRun } from './cohort-run.js';
import { manifestFigures } from './manifest-read.js';

const run = promisify(execFile);

/** WBPLAY_BENCH_COHORT=200 gives the threads' and processes' fixed costs less weight. */
const STUDIES = studyCount(process.env.WBPLAY_BENCH_COHORT);
const RUNS = 3;
const SPEEDUP_TARGET = 1.7;
const OUTSIDE_TARGET = 0.05;

// The steps of playbooks/cohort.yaml, without its contact sheet (a one-off figure at the end).
export const PLAYBOOK = `version: 1
name: Cohort benchmark
vars:
  data: .
  out: out
foreach:
  csv: \${data}/studies.csv
steps:
  - load: { file: "\${study.path}/ct.nrrd", as: ct }
  - load: { file: "\${study.path}/tumour-label.nrrd", as: tumour, parent: ct, color: [1.0, 0.3, 0.2], opacity: 0.6 }
  - reinit: { nodes: [ct] }
  - position: ["\${study.tumour_x}", "\${study.tumour_y}", "\${study.tumour_z}"]
  - camera: { window: stdmulti/3d, standard_view: anterior }
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}/axial.png" }
  - screenshot: { of: stdmulti/sagittal, save: "\${out}/\${study.name}/sagittal.png" }
  - screenshot: { of: stdmulti/coronal, save: "\${out}/\${study.name}/coronal.png" }
  - screenshot: { of: stdmulti/3d, save: "\${out}/\${study.name}/3d.png" }
`;

function studyCount(text: string | undefined): number {
  if (text === undefined || text === '') return 40;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 2 || n > 10_000)
    throw new Error(`WBPLAY_BENCH_COHORT must be a whole number of studies from 2 to 10000, got '${text}'`);
  return n;
}

/** A fixed amount of plain arithmetic, the same in every thread. */
const SPIN = `let h = 1; for (let i = 0; i < 150_000_000; i++) h = Math.imul(h ^ i, 2654435761) >>> 0; require('node:worker_threads').parentPort.postMessage(h);`;

function spin(): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SPIN, { eval: true });
    worker.once('message', () => void worker.terminate().then(() => resolve()));
    worker.once('error', reject);
  });
}

/**
 * What two threads get from this machine at this moment: two spins one after the other on
 * one thread against the same two on two threads. On an idle 2-core machine about 2.0; less
 * when other processes take a core, which caps the cohort's speed-up the same way.
 */
async function parallelHeadroom(): Promise<number> {
  let t0 = performance.now();
  await spin();
  await spin();
  const serial = performance.now() - t0;
  t0 = performance.now();
  await Promise.all([spin(), spin()]);
  return serial / (performance.now() - t0);
}

/** One cohort run (or one shard of it) in a fresh process (bench/cohort-run.ts, on the compiled package). */
async function cohortRun(dataDir: string, count: number, outputDir: string, shard = ''): Promise<CohortRun> {
  const script = fileURLToPath(new URL('cohort-run.ts', import.meta.url));
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', script, dataDir, String(count), outputDir, shard],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as CohortRun;
}

/**
 * The cohort as two shards run at once, each in its own process on one workbench in its
 * thread, as `--shard 1/2` and `--shard 2/2` side by side: one run's figures from the two, over
 * the span from the first start to the last end.
 */
async function shardsSideBySide(dataDir: string, outputDir: string): Promise<CohortRun> {
  const [a, b] = await Promise.all([
    cohortRun(dataDir, 1, join(outputDir, 'shard-1'), '1/2'),
    cohortRun(dataDir, 1, join(outputDir, 'shard-2'), '2/2'),
  ]);
  const startedAt = Math.min(a.startedAt, b.startedAt);
  const endedAt = Math.max(a.endedAt, b.endedAt);
  const span = endedAt - startedAt;
  const cpuMs = a.cpuMs + b.cpuMs;
  return {
    total: span,
    startedAt,
    endedAt,
    // Each process's time with its workbench up, laid over the span: start and stop of both count as one.
    window: span - Math.max(a.total - a.window, b.total - b.window),
    reports: Math.max(a.reports, b.reports),
    steps: a.steps + b.steps,
    http: a.http + b.http,
    workers: 2,
    passed: a.passed + b.passed,
    cores: cpuMs / span,
    cpuMs,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/**
 * One and two embedded workbenches, alternating, RUNS times each after one warm-up of each
 * (the file system's caches), every run a fresh process writing into a fresh output folder with
 * `force` so no study is skipped. Outside share = 1 - (time inside HTTP exchanges, per
 * workbench, summed) / (workers x the run's window).
 */
export default async function bench(): Promise<void> {
  await manifestFigures();
  if (process.env.WBPLAY_BENCH_MANIFEST_ONLY === '1') return;
  // The compiled package, as the `wbplay` command runs it (and its workers start from dist/
  // without registering a TypeScript loader).
  buildPackage();
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-cohort-'));
  try {
    await writeDemoData(dir, { cohort: STUDIES });
    await writeFile(join(dir, 'cohort.yaml'), PLAYBOOK);
    const ways = {
      '1': (out: string) => cohortRun(dir, 1, out),
      '2': (out: string) => cohortRun(dir, 2, out),
      '2 shards': (out: string) => shardsSideBySide(dir, out),
    };
    type Way = keyof typeof ways;
    const runs: Record<Way, CohortRun[]> = { '1': [], '2': [], '2 shards': [] };
    const headroom: number[] = [];
    let n = 0;
    for (let round = 0; round <= RUNS; round++) {
      if (round > 0) headroom.push(await parallelHeadroom());
      for (const way of Object.keys(ways) as Way[]) {
        const out = join(dir, `out-${n++}`);
        const run = await ways[way](out);
        if (run.passed !== STUDIES)
          throw new Error(`${STUDIES - run.passed} of ${STUDIES} studies did not pass on ${way} workbench(es)`);
        await rm(out, { recursive: true, force: true });
        if (round > 0) runs[way].push(run);
      }
    }
    const perMinute = (ms: number): number => (STUDIES * 60_000) / ms;
    const figures = (Object.keys(ways) as Way[]).map((way) => {
      const r = runs[way];
      const window = median(r.map((x) => x.window));
      const outside = r.map((x) => 1 - x.http / (x.workers * x.window));
      const outsideSteps = r.map((x) => 1 - x.steps / (x.workers * x.window));
      return {
        way,
        total: median(r.map((x) => x.total)),
        window,
        outside: median(outside),
        outsideSteps: median(outsideSteps),
        startStop: median(r.map((x) => x.total - x.window)),
        cores: median(r.map((x) => x.cores)),
        reports: median(r.map((x) => x.reports)),
      };
    });
    const [one, two, shards] = figures as [(typeof figures)[0], (typeof figures)[0], (typeof figures)[0]];
    console.log(
      `${STUDIES} studies x 4 window screenshots; medians of ${RUNS} alternating runs after one warm-up each, each run a fresh process`,
    );
    console.log(
      '  workbenches  run s  studies/min  start+stop s  cores used  outside workbench calls  of which between steps  reports s',
    );
    for (const f of figures) {
      console.log(
        `${f.way.padStart(13)}  ${(f.total / 1000).toFixed(1).padStart(5)}  ${perMinute(f.total).toFixed(0).padStart(11)}  ${(f.startStop / 1000).toFixed(2).padStart(12)}  ${f.cores.toFixed(2).padStart(10)}  ${`${(f.outside * 100).toFixed(1)}%`.padStart(23)}  ${`${(f.outsideSteps * 100).toFixed(1)}%`.padStart(22)}  ${(f.reports / 1000).toFixed(2).padStart(9)}`,
      );
    }
    const speedup = one.total / two.total;
    const worst = Math.max(one.outside, two.outside);
    console.log(
      `speed-up 2 vs 1 workbench: ${speedup.toFixed(2)}x (workbenches up, start and stop left out: ${(one.window / two.window).toFixed(2)}x); target >= ${SPEEDUP_TARGET} ${speedup >= SPEEDUP_TARGET ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `  two shards side by side, a process and a workbench each, vs 1: ${(one.total / shards.total).toFixed(2)}x (workbenches up: ${(one.window / shards.window).toFixed(2)}x): what this machine gives two runs that share nothing`,
    );
    console.log(
      `  what two threads got from this machine meanwhile (plain arithmetic, 2 threads vs 1): ${median(headroom).toFixed(2)}x`,
    );
    console.log(
      `outside workbench calls: ${(one.outside * 100).toFixed(1)}% (1), ${(two.outside * 100).toFixed(1)}% (2); target <= ${OUTSIDE_TARGET * 100}% ${worst <= OUTSIDE_TARGET ? 'ok' : 'MISSED'}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
