// wbplay against the script a user would write instead, on the 40-study demo cohort (four window
// screenshots a study, no contact sheet), against a reference workbench in a process of its own
// (`wbplay serve`, as MITK always is). Every side is a process of its own, as a user runs it:
//   loop     a plain loop through the project's client, PNGs written with fs.writeFile
//   wbplay   runPlans by URL, the console's line reporter, no report files
//   reports  `wbplay run --url` (the CLI, which always writes report.json and report.html)
// and the workbench-bound limit: the sum of the durations of wbplay's exchanges, as its client
// saw them. The sides alternate in rounds (their order turning each round) after a warm-up
// round; wall time from spawn to exit, CPU from the child's own resource usage (every thread).
// The exchanges each side sent are counted from the workbench's event log.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { writeDemoData } from '../src/sim/demo-data.js';
import { PACKAGE_CLI, buildPackage } from './built.js';
import { PLAYBOOK } from './cohort.bench.js';

const STUDIES = 40;
const ROUNDS = rounds(process.env.WBPLAY_BENCH_ROUNDS);
const TARGETS = { loopWall: 1.05, limitWall: 1.1, loopCpu: 1.3, reportsWall: 1.08 };

const CLI = PACKAGE_CLI;
const SIDE = fileURLToPath(new URL('cohort-vs-loop-run.mjs', import.meta.url));
/** Loaded before the child's own code: writes the process's resource usage (every thread) as it exits. */
const RUSAGE = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(process.env.WBPLAY_BENCH_RUSAGE, JSON.stringify(process.resourceUsage())));',
)}`;

function rounds(text: string | undefined): number {
  if (text === undefined || text === '') return 5;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 3 || n > 50)
    throw new Error(`WBPLAY_BENCH_ROUNDS must be a whole number from 3 to 50, got '${text}'`);
  return n;
}

type Side = 'loop' | 'wbplay' | 'reports';
const SIDES: Side[] = ['loop', 'wbplay', 'reports'];

interface SideRun {
  /** Spawn to exit. */
  wall: number;
  /** User + system CPU of the child process. */
  cpu: number;
  maxRssMb: number;
  /** Requests the workbench logged during the run. */
  exchanges: number;
  /** CPU of the workbench's process during the run (Linux only, else NaN). */
  workbenchCpu: number;
  /** From the child's own line: time inside exchanges, summed, and first start to last end (not for `reports`). */
  busy: number;
  span: number;
  /** From the child's start to its first exchange: Node's start and the modules loaded (not for `reports`). */
  first: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `wbplay serve --port 0` from the build, with its event log; resolves with its URL once it listens. */
function serve(events: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--events', events], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      text += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (m)
        resolve({
          url: m[1]!,
          pid: child.pid!,
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
    });
    child.once('exit', (code) => reject(new Error(`wbplay serve exited (${code}) before listening: ${text}`)));
  });
}

/** utime + stime of a process in ms, from /proc (NaN where there is none). */
async function processCpu(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5), counted after the command name; clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

async function eventCount(events: string): Promise<number> {
  try {
    const text = await readFile(events, 'utf8');
    return text.split('\n').length - 1;
  } catch {
    return 0;
  }
}

async function sideRun(
  side: Side,
  url: string,
  dir: string,
  out: string,
  workbench: { pid: number; events: string },
): Promise<SideRun> {
  const rusageFile = join(out + '.rusage.json');
  const args =
    side === 'reports'
      ? [CLI, 'run', join(dir, 'cohort.yaml'), '--url', url, '--out', out, '--force', '--reporter', 'line']
      : [SIDE, side, url, dir, out];
  if (side === 'reports') args.push('--var', `out=${join(out, 'shots')}`);
  const before = await eventCount(workbench.events);
  const cpuBefore = await processCpu(workbench.pid);
  const t0 = performance.now();
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', RUSAGE, ...args], {
      cwd: dir,
      env: { ...process.env, WBPLAY_BENCH_RUSAGE: rusageFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (text += chunk));
    child.once('error', reject);
    child.once('close', (c) => resolve({ code: c, stdout: text }));
  });
  const wall = performance.now() - t0;
  const workbenchCpu = (await processCpu(workbench.pid)) - cpuBefore;
  if (code !== 0) throw new Error(`${side} exited with ${code}: ${stdout.slice(-2000)}`);
  const usage = JSON.parse(await readFile(rusageFile, 'utf8')) as NodeJS.ResourceUsage;
  const exchanges = (await eventCount(workbench.events)) - before;
  let busy = NaN;
  let span = NaN;
  let first = NaN;
  if (side !== 'reports') {
    const line = JSON.parse(stdout.trim().split('\n').pop()!) as {
      passed: number;
      busy: number;
      span: number;
      first: number;
    };
    if (line.passed !== STUDIES) throw new Error(`${side}: ${line.passed} of ${STUDIES} studies passed`);
    busy = line.busy;
    span = line.span;
    first = line.first;
  } else if (!/PASSED 40 cases/.test(stdout)) throw new Error(`reports: not every case passed: ${stdout.slice(-2000)}`);
  await rm(out, { recursive: true, force: true });
  await rm(rusageFile, { force: true });
  return {
    wall,
    cpu: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    maxRssMb: usage.maxRSS / 1024,
    exchanges,
    workbenchCpu,
    busy,
    span,
    first,
  };
}

/** ms as seconds in a column `width` wide; `-` for a figure the side does not have. */
const seconds = (ms: number, width: number): string =>
  (Number.isNaN(ms) ? '-' : (ms / 1000).toFixed(2)).padStart(width);

const verdict = (value: number, target: number): string =>
  `${value.toFixed(2)}x (target <= ${target.toFixed(2)}) ${value <= target ? 'MET' : 'MISSED'}`;

export default async function bench(): Promise<void> {
  buildPackage();
  const dir = await mkdtemp(join(tmpdir(), 'cohort-vs-loop-'));
  const events = join(dir, 'events.jsonl');
  const workbench = await serve(events);
  try {
    await writeDemoData(dir, { cohort: STUDIES });
    await writeFile(join(dir, 'cohort.yaml'), PLAYBOOK);
    const load = [loadavg()[0]!];
    const runs: Record<Side, SideRun[]> = { loop: [], wbplay: [], reports: [] };
    let n = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      // The order turns each round, so no side always follows the same other one.
      const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]!);
      for (const side of order) {
        const run = await sideRun(side, workbench.url, dir, join(dir, `out-${n++}`), { pid: workbench.pid, events });
        if (round > 0) runs[side].push(run);
      }
    }
    load.push(loadavg()[0]!);

    const perRound = runs.loop.map((loop, i) => {
      const wbplay = runs.wbplay[i]!;
      const reports = runs.reports[i]!;
      return {
        loop,
        wbplay,
        reports,
        loopWall: wbplay.wall / loop.wall,
        limitWall: wbplay.wall / wbplay.busy,
        limitSpan: wbplay.span / wbplay.busy,
        loopCpu: wbplay.cpu / loop.cpu,
        reportsWall: reports.wall / loop.wall,
      };
    });
    console.log(
      `${STUDIES} demo studies x 4 window screenshots against \`wbplay serve\` (its own process); ${ROUNDS} rounds after a warm-up, each side a fresh process; load average ${load.map((l) => l.toFixed(1)).join(' -> ')}`,
    );
    console.log(
      'round  side     wall s  CPU s  max RSS MB  exchanges/study  to first exchange s  in exchanges s  first-last exchange s  workbench CPU s',
    );
    perRound.forEach((r, i) => {
      for (const side of SIDES) {
        const x = r[side];
        console.log(
          `${String(i + 1).padStart(5)}  ${side.padEnd(7)}  ${seconds(x.wall, 6)}  ${seconds(x.cpu, 5)}  ${x.maxRssMb.toFixed(0).padStart(10)}  ${(x.exchanges / STUDIES).toFixed(2).padStart(15)}  ${seconds(x.first, 19)}  ${seconds(x.busy, 14)}  ${seconds(x.span, 21)}  ${seconds(x.workbenchCpu, 15)}`,
        );
      }
      console.log(
        `       ratios: wbplay/loop wall ${r.loopWall.toFixed(3)}, CPU ${r.loopCpu.toFixed(3)}; wbplay wall/limit ${r.limitWall.toFixed(3)} (first-last exchange/limit ${r.limitSpan.toFixed(3)}); reports/loop wall ${r.reportsWall.toFixed(3)}`,
      );
    });
    const m = (f: (r: (typeof perRound)[0]) => number): number => median(perRound.map(f));
    console.log(`medians over ${ROUNDS} rounds (of the per-round ratios):`);
    console.log(
      `  wall: loop ${(m((r) => r.loop.wall) / 1000).toFixed(2)} s, wbplay ${(m((r) => r.wbplay.wall) / 1000).toFixed(2)} s, with reports ${(m((r) => r.reports.wall) / 1000).toFixed(2)} s, limit (wbplay's exchanges) ${(m((r) => r.wbplay.busy) / 1000).toFixed(2)} s`,
    );
    console.log(
      `  CPU: loop ${(m((r) => r.loop.cpu) / 1000).toFixed(2)} s, wbplay ${(m((r) => r.wbplay.cpu) / 1000).toFixed(2)} s, with reports ${(m((r) => r.reports.cpu) / 1000).toFixed(2)} s`,
    );
    console.log(
      `  exchanges per study: loop ${(m((r) => r.loop.exchanges) / STUDIES).toFixed(2)}, wbplay ${(m((r) => r.wbplay.exchanges) / STUDIES).toFixed(2)}, with reports ${(m((r) => r.reports.exchanges) / STUDIES).toFixed(2)}`,
    );
    console.log(
      `wbplay wall / loop:          ${verdict(
        m((r) => r.loopWall),
        TARGETS.loopWall,
      )}`,
    );
    console.log(
      `wbplay wall / limit:         ${verdict(
        m((r) => r.limitWall),
        TARGETS.limitWall,
      )}  (first to last exchange / limit: ${m((r) => r.limitSpan).toFixed(2)}x)`,
    );
    console.log(
      `wbplay CPU / loop:           ${verdict(
        m((r) => r.loopCpu),
        TARGETS.loopCpu,
      )}`,
    );
    console.log(
      `with reports, wall / loop:   ${verdict(
        m((r) => r.reportsWall),
        TARGETS.reportsWall,
      )}`,
    );
  } finally {
    await workbench.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
