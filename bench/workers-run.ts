// One cohort of bench/workers.bench.ts in a process of its own (started with --expose-gc):
// the compiled package, `count` embedded workbenches in worker threads, the CLI's default
// reporters. Prints one JSON line: when each fifth of the studies ended, the process's peak RSS,
// and per thread (main, each workbench) the live heap after a forced collection at the end of
// each fifth and the peak of the heap in use.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics, type HeapInfo } from 'node:v8';
import type * as Wbplay from '../src/index.js';
import { PACKAGE_ENTRY } from './built.js';
import type { EmbeddedWorkbench } from '../src/sim/embedded.js';
import type { Reporter } from '../src/result/reporter.js';

const [dataDir, countArg, studiesArg, outputDir, playbook] = process.argv.slice(2);
const { createReporters, embeddedWorkbenches, loadPlaybook, runPlans } = (await import(PACKAGE_ENTRY)) as typeof Wbplay;

export interface ThreadFigures {
  thread: string;
  /** Heap in use after a full collection, at the end of each fifth of the studies. */
  liveAfterGc: number[];
  /** The largest heap in use seen by the sampler (garbage included). */
  peakUsed: number;
  /** The same until the last study ended (the rest is writing the reports). */
  peakUsedCases: number;
  /** The largest heap V8 had reserved (total_heap_size). */
  peakTotal: number;
  /** Memory outside the heap that V8 is told of (buffers' backing stores), after each collection above. */
  externalAfterGc: number[];
}

export interface WorkersRun {
  studies: number;
  passed: number;
  /** ms from the run's start to the end of each fifth of the studies. */
  fifths: number[];
  /** CPU time of the process (every thread) in ms from the run's start to the end of each fifth. */
  cpuFifths: number[];
  /** Of it, the kernel's (system CPU), in ms since the run started. */
  systemFifths: number[];
  /** The machine's one-minute load average at the start and at the end of each fifth. */
  load: number[];
  peakRss: number;
  /** Peak RSS until the last study ended (the rest is writing the reports). */
  peakRssCases: number;
  threads: ThreadFigures[];
}

const studies = Number(studiesArg);
const count = Number(countArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const handles: EmbeddedWorkbench[] = [];
const base = embeddedWorkbenches(count);
const workbenches = {
  ...base,
  async start(index: number, of: number) {
    const wb = await base.start(index, of);
    handles[index] = wb;
    // The run stops its workbenches once the last case ended: the last heap readings come first.
    return { ...wb, stop: async () => (await Promise.all(pending), wb.stop()) };
  },
};

const fifths: number[] = [];
const threads = new Map<string, ThreadFigures>();
const figures = (thread: string): ThreadFigures => {
  let t = threads.get(thread);
  if (!t)
    threads.set(
      thread,
      (t = { thread, liveAfterGc: [], peakUsed: 0, peakUsedCases: 0, peakTotal: 0, externalAfterGc: [] }),
    );
  return t;
};
const note = (thread: string, h: HeapInfo): void => {
  const t = figures(thread);
  t.peakUsed = Math.max(t.peakUsed, h.used_heap_size);
  if (fifths.length < 5) t.peakUsedCases = t.peakUsed;
  t.peakTotal = Math.max(t.peakTotal, h.total_heap_size);
};

let peakRss = process.memoryUsage().rss;
let peakRssCases = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  note('main', getHeapStatistics());
  handles.forEach(
    (wb, i) =>
      void wb
        .heap?.()
        .then((h) => note(`workbench #${i + 1}`, h))
        // A thread the run has stopped has no figures left to give.
        .catch(() => undefined),
  );
}, 200);

/** Live heap of every thread after a full collection; the run goes on meanwhile. */
async function liveHeaps(): Promise<void> {
  const live = (thread: string, h: HeapInfo): void => {
    const t = figures(thread);
    t.liveAfterGc.push(h.used_heap_size);
    t.externalAfterGc.push((h as HeapInfo & { external_memory: number }).external_memory);
  };
  gc!();
  live('main', getHeapStatistics());
  await Promise.all(handles.map(async (wb, i) => live(`workbench #${i + 1}`, await wb.heap!(true))));
}

const files = createReporters(['line', 'json', 'html'], {
  outputDir: outputDir!,
  stream: { write: () => true },
  isTTY: false,
  env: {},
});
const fifth = studies / 5;
const cpuFifths: number[] = [];
const systemFifths: number[] = [];
const load: number[] = [];
let cpuFrom = process.cpuUsage();
const pending: Array<Promise<void>> = [];
let from = 0;
let ended = 0;
const reporter: Reporter = {
  onRunStart: async (info) => {
    from = performance.now();
    cpuFrom = process.cpuUsage();
    load.push(loadavg()[0]!);
    await files.onRunStart(info);
  },
  onCaseStart: (c, w) => files.onCaseStart(c, w),
  onStepStart: (c, s) => files.onStepStart(c, s),
  onStepRetry: (c, s, a, d) => files.onStepRetry(c, s, a, d),
  onStepEnd: (c, r) => files.onStepEnd(c, r),
  onCaseEnd: (r) => {
    files.onCaseEnd(r);
    ended++;
    if (ended >= Math.round(fifth * (fifths.length + 1))) {
      fifths.push(performance.now() - from);
      const cpu = process.cpuUsage(cpuFrom);
      cpuFifths.push((cpu.user + cpu.system) / 1000);
      systemFifths.push(cpu.system / 1000);
      load.push(loadavg()[0]!);
      if (fifths.length === 5) peakRssCases = Math.max(peakRss, process.memoryUsage().rss);
      pending.push(liveHeaps());
    }
  },
  onNotice: (m) => files.onNotice(m),
  onRunEnd: async (result) => {
    await Promise.all(pending);
    await files.onRunEnd(result);
  },
};

const plan = loadPlaybook(join(dataDir!, playbook!), { vars: { out: outputDir! } });
const result = await runPlans({ plans: [plan], workbenches, reporter, outputDir: outputDir!, force: true });
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
if (files.failures.length > 0) throw new Error(`a reporter failed: ${JSON.stringify(files.failures[0])}`);
const run: WorkersRun = {
  studies,
  passed: result.summary.passed,
  fifths,
  cpuFifths,
  systemFifths,
  load,
  peakRss,
  peakRssCases,
  threads: [...threads.values()],
};
process.stdout.write(`${JSON.stringify(run)}\n`);
