// One run of the cohort benchmark in a process of its own, as a `wbplay run` starts: the
// compiled package loaded cold, then one cohort (or one shard of it, `i/n`) on `count`
// embedded workbenches. Prints the run's figures as one JSON line. Started by
// cohort.bench.ts, once per run.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as Wbplay from '../src/index.js';
import { PACKAGE_ENTRY } from './built.js';
import type { Reporter } from '../src/result/reporter.js';

const [dataDir, countArg, outputDir, shardArg] = process.argv.slice(2);
const { createReporters, embeddedWorkbenches, loadPlaybook, runPlans } = (await import(PACKAGE_ENTRY)) as typeof Wbplay;

interface Interval {
  start: number;
  end: number;
}

/**
 * Every HTTP exchange of the run, by workbench origin, from undici's diagnostics channels:
 * from the request's creation to the last byte of its answer. The runner's clients are built
 * inside runPlans, so this is how the time inside workbench calls is seen from outside.
 */
class ExchangeClock {
  readonly byOrigin = new Map<string, Interval[]>();
  private readonly open = new Map<object, { origin: string; start: number }>();
  private readonly onCreate = (msg: unknown): void => {
    const { request } = msg as { request: { origin?: unknown } };
    this.open.set(request, { origin: String(request.origin), start: performance.now() });
  };
  private readonly onDone = (msg: unknown): void => {
    const { request } = msg as { request: object };
    const o = this.open.get(request);
    if (!o) return;
    this.open.delete(request);
    const list = this.byOrigin.get(o.origin) ?? [];
    list.push({ start: o.start, end: performance.now() });
    this.byOrigin.set(o.origin, list);
  };

  start(): void {
    subscribe('undici:request:create', this.onCreate);
    subscribe('undici:request:trailers', this.onDone);
    subscribe('undici:request:error', this.onDone);
  }

  stop(): void {
    unsubscribe('undici:request:create', this.onCreate);
    unsubscribe('undici:request:trailers', this.onDone);
    unsubscribe('undici:request:error', this.onDone);
  }

  /** Time covered by exchanges (overlaps within one origin counted once) inside [from, to]. */
  busy(from: number, to: number): { total: number; origins: number; requests: number } {
    let total = 0;
    let requests = 0;
    for (const list of this.byOrigin.values()) {
      const clipped = list
        .map((i) => ({ start: Math.max(i.start, from), end: Math.min(i.end, to) }))
        .filter((i) => i.end > i.start)
        .sort((a, b) => a.start - b.start);
      requests += clipped.length;
      let reach = -Infinity;
      for (const i of clipped) {
        total += Math.max(0, i.end - Math.max(i.start, reach));
        reach = Math.max(reach, i.end);
      }
    }
    return { total, origins: this.byOrigin.size, requests };
  }
}

export interface CohortRun {
  /** runPlans from call to return: workbench start and stop included. */
  total: number;
  /** The same call's start and end on the wall clock (ms since the epoch), to line up processes run side by side. */
  startedAt: number;
  endedAt: number;
  /** From onRunStart to the end of onRunEnd (reports written): the workbenches are up. */
  window: number;
  /** onRunEnd of the CLI's reporters: the JSON and HTML reports written. */
  reports: number;
  /** Sum of the steps' durationMs, over every worker. */
  steps: number;
  /** Time inside HTTP exchanges, per workbench, summed over the workbenches. */
  http: number;
  workers: number;
  passed: number;
  /** CPU time of the whole process (every thread) over the run's wall time. */
  cores: number;
  /** The same CPU time in ms. */
  cpuMs: number;
}

async function cohortRun(
  plan: Wbplay.Plan,
  count: number,
  outputDir: string,
  clock: ExchangeClock,
  shard: Wbplay.Shard | undefined,
): Promise<CohortRun> {
  const files = createReporters(['line', 'json', 'html'], {
    outputDir,
    stream: { write: () => true },
    isTTY: false,
    env: {},
  });
  let from = 0;
  let to = 0;
  let reportsFrom = 0;
  let steps = 0;
  let workers = 0;
  // Delegates every event to the CLI's default reporters (line to a sink, JSON and HTML files),
  // and notes when the run starts and when the reports are written.
  const reporter: Reporter = {
    onRunStart: async (info) => {
      from = performance.now();
      workers = info.workers;
      await files.onRunStart(info);
    },
    onCaseStart: (c, w) => files.onCaseStart(c, w),
    onStepStart: (c, s) => files.onStepStart(c, s),
    onStepRetry: (c, s, a, d) => files.onStepRetry(c, s, a, d),
    onStepEnd: (c, r) => {
      steps += r.durationMs;
      files.onStepEnd(c, r);
    },
    onCaseEnd: (r) => files.onCaseEnd(r),
    onNotice: (m) => files.onNotice(m),
    onRunEnd: async (result) => {
      reportsFrom = performance.now();
      await files.onRunEnd(result);
      to = performance.now();
    },
  };
  clock.byOrigin.clear();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const result = await runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(count),
    reporter,
    outputDir,
    force: true,
    ...(shard ? { shard } : {}),
  });
  const total = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  if (files.failures.length > 0) throw new Error(`a reporter failed: ${JSON.stringify(files.failures[0])}`);
  const busy = clock.busy(from, to);
  if (busy.origins !== workers) throw new Error(`saw exchanges with ${busy.origins} workbenches, expected ${workers}`);
  const startedAt = performance.timeOrigin + t0;
  return {
    total,
    startedAt,
    endedAt: startedAt + total,
    window: to - from,
    reports: to - reportsFrom,
    steps,
    http: busy.total,
    workers,
    passed: result.summary.passed,
    cores: (used.user + used.system) / 1000 / total,
    cpuMs: (used.user + used.system) / 1000,
  };
}

const clock = new ExchangeClock();
clock.start();
const plan = loadPlaybook(join(dataDir!, 'cohort.yaml'), { vars: { out: outputDir! } });
const [index, of] = (shardArg ?? '').split('/').map(Number);
const shard = index && of ? { index, count: of } : undefined;
const run = await cohortRun(plan, Number(countArg), outputDir!, clock, shard);
clock.stop();
process.stdout.write(`${JSON.stringify(run)}\n`);
