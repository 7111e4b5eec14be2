// The same cohort on two reference workbenches, with about one request in ten failing (503,
// 429, connections dropped before and after the request is applied, stalls) on every method,
// and without faults, alternately in one process. Prints the time ratio and the faults survived.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadPlaybook } from '../src/compile/index.js';
import type { RetryPolicy } from '../src/run/retry.js';
import { runPlans } from '../src/run/runner.js';
import { writeDemoData } from '../src/sim/demo-data.js';
import { startReferenceWorkbench } from '../src/sim/server.js';

const STUDIES = 24;
const RUNS = 3;
const FAULTS = '503@rate=0.025;429=0@rate=0.025;drop-before@rate=0.02;drop-after@rate=0.02;stall@rate=0.01';
const RETRY: RetryPolicy = { retries: 8, minDelayMs: 20, maxDelayMs: 200, factor: 2 };
const REQUEST_TIMEOUT_MS = 500;

const PLAYBOOK = `version: 1
name: Soak benchmark
foreach:
  csv: studies.csv
steps:
  - load: { file: "\${study.path}/ct.nrrd", as: ct }
  - load: { file: "\${study.path}/tumour-label.nrrd", as: tumour, parent: ct, color: [1.0, 0.3, 0.2], opacity: 0.6 }
  - reinit: { nodes: [ct] }
  - position: ["\${study.tumour_x}", "\${study.tumour_y}", "\${study.tumour_z}"]
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}/axial.png" }
  - screenshot: { of: stdmulti/3d, save: "\${out}/\${study.name}/3d.png" }
`;

async function once(
  dir: string,
  run: number,
  faults: boolean,
): Promise<{ ms: number; passed: number; faults: number }> {
  const workbenches = await Promise.all(
    [1, 2].map((k) => startReferenceWorkbench(faults ? { faults: `seed=${run * 10 + k};${FAULTS}` } : {})),
  );
  // Counted as they happen: the logs keep only the latest requests.
  let injected = 0;
  for (const w of workbenches)
    w.events.subscribe((e) => {
      if (e.fault !== undefined && e.fault !== 'latency') injected++;
    });
  try {
    const out = join(dir, `out-${run}-${faults ? 'faults' : 'clean'}`);
    const plan = loadPlaybook(join(dir, 'soak.yaml'), { vars: { out } });
    const started = performance.now();
    const result = await runPlans({
      plans: [plan],
      workbenches: { urls: workbenches.map((w) => w.url) },
      reporter: {},
      outputDir: out,
      retry: RETRY,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    const ms = performance.now() - started;
    return { ms, passed: result.summary.passed, faults: injected };
  } finally {
    await Promise.all(workbenches.map((w) => w.stop()));
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function soak(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-soak-'));
  try {
    await writeDemoData(dir, { cohort: STUDIES });
    await writeFile(join(dir, 'soak.yaml'), PLAYBOOK);
    await once(dir, 0, false); // warm-up
    const clean: number[] = [];
    const faulty: number[] = [];
    let survived = 0;
    let passed = 0;
    for (let run = 1; run <= RUNS; run++) {
      clean.push((await once(dir, run, false)).ms);
      const f = await once(dir, run, true);
      faulty.push(f.ms);
      survived += f.faults;
      passed += f.passed;
    }
    console.log(
      `${STUDIES} studies × ${RUNS} runs on 2 reference workbenches, request timeout ${REQUEST_TIMEOUT_MS} ms`,
    );
    console.log(`without faults:   median ${median(clean).toFixed(0)} ms`);
    console.log(
      `with ~10% faults: median ${median(faulty).toFixed(0)} ms (${passed}/${STUDIES * RUNS} studies passed, ${survived} faults survived)`,
    );
    console.log(`ratio: ${(median(faulty) / median(clean)).toFixed(2)}x`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
