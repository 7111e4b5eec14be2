// `--workers 2` over many studies: the demo cohort's steps (two loads, reinit, position, camera,
// four window screenshots) on two embedded reference workbenches in worker threads, with the
// CLI's default reporters, for 600 and then 3,000 studies (WBPLAY_BENCH_WORKERS_STUDIES=a,b for
// others), each cohort a process of its own on the compiled package. Eight demo studies are
// dealt out in turn under names of their own, so the data stays small while every case is new.
// Prints the rate of the last fifth of the studies against the first, peak RSS of the big
// cohort against the small one (the kernel's peak, measured from outside by GNU time where
// /usr/bin/time is, else sampled inside every 200 ms), and per thread the live heap after a forced collection at the
// end of each fifth beside its peak heap in use.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeDemoData } from '../src/sim/demo-data.js';
import { buildPackage } from './built.js';
import { PLAYBOOK } from './cohort.bench.js';
import type { WorkersRun } from './workers-run.js';

const run = promisify(execFile);

const SIZES = sizes(process.env.WBPLAY_BENCH_WORKERS_STUDIES);
const DEMO_STUDIES = 8;
const RATE_TARGET = 0.9;
const RSS_TARGET = 1.2;

function sizes(text: string | undefined): [number, number] {
  if (text === undefined || text === '') return [600, 3000];
  const parts = text.split(',').map(Number);
  if (parts.length !== 2 || parts.some((n) => !Number.isInteger(n) || n < 10))
    throw new Error(`WBPLAY_BENCH_WORKERS_STUDIES must be two whole numbers of studies (at least 10), got '${text}'`);
  return parts as [number, number];
}

/** `studies` rows, each a demo study in turn under a name of its own. */
async function manifest(dir: string, studies: number): Promise<void> {
  const [header, ...rows] = (await readFile(join(dir, 'studies.csv'), 'utf8')).trim().split('\n');
  const lines = [header!];
  for (let i = 0; i < studies; i++) {
    const row = rows[i % rows.length]!;
    lines.push(`case-${String(i).padStart(5, '0')}${row.slice(row.indexOf(','))}`);
  }
  await writeFile(join(dir, `studies-${studies}.csv`), `${lines.join('\n')}\n`);
  await writeFile(join(dir, `cohort-${studies}.yaml`), PLAYBOOK.replace('studies.csv', `studies-${studies}.csv`));
}

/** GNU time: the kernel's peak resident set of the process it ran, told when it has ended. */
const TIME = '/usr/bin/time';
const MAX_RSS = 'wbplay-bench-max-rss-kb';

/** A cohort's figures, and its peak RSS as the kernel counted it, from outside the process. */
type Measured = WorkersRun & { outsideRss: number | undefined };

async function cohort(dir: string, studies: number): Promise<Measured> {
  const script = fileURLToPath(new URL('workers-run.ts', import.meta.url));
  const out = join(dir, `out-${studies}`);
  const node = [
    process.execPath,
    '--expose-gc',
    '--import',
    'tsx',
    script,
    dir,
    '2',
    String(studies),
    out,
    `cohort-${studies}.yaml`,
  ];
  const timed = existsSync(TIME);
  try {
    const { stdout, stderr } = timed
      ? await run(TIME, ['-f', `${MAX_RSS} %M`, ...node], { maxBuffer: 1 << 20 })
      : await run(node[0]!, node.slice(1), { maxBuffer: 1 << 20 });
    const figures = JSON.parse(stdout.trim().split('\n').pop()!) as WorkersRun;
    if (figures.passed !== studies) throw new Error(`${studies - figures.passed} of ${studies} studies did not pass`);
    const kb = new RegExp(`^${MAX_RSS} (\\d+)$`, 'm').exec(stderr)?.[1];
    return { ...figures, outsideRss: kb === undefined ? undefined : Number(kb) * 1024 };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(b < 100 * 1024 * 1024 ? 1 : 0)} MB`;
const verdict = (met: boolean): string => (met ? 'MET' : 'MISSED');

/** Studies per second of the first and of the last fifth. */
function rates(r: WorkersRun): { first: number; last: number } {
  const fifth = r.studies / 5;
  const [first, , , fourth, fifthEnd] = r.fifths as [number, number, number, number, number];
  return { first: fifth / (first / 1000), last: fifth / ((fifthEnd - fourth) / 1000) };
}

/**
 * CPU ms per study (all threads) of the first and of the last fifth: unlike the rate, this
 * hardly moves with what else the machine runs, so it tells work that grows from a busy machine.
 */
function cpuPerStudy(r: WorkersRun, of: 'cpuFifths' | 'systemFifths' = 'cpuFifths'): { first: number; last: number } {
  const fifth = r.studies / 5;
  const [first, , , fourth, fifthEnd] = r[of] as [number, number, number, number, number];
  return { first: first / fifth, last: (fifthEnd - fourth) / fifth };
}

export default async function bench(): Promise<void> {
  buildPackage();
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-workers-'));
  try {
    await writeDemoData(dir, { cohort: DEMO_STUDIES });
    const results: Measured[] = [];
    for (const n of SIZES) {
      await manifest(dir, n);
      results.push(await cohort(dir, n));
    }
    console.log(
      '| studies | studies/s first fifth | last fifth | last/first | CPU ms/study first fifth | last fifth | wall | peak RSS from outside | sampled inside | of it until the last study ended | load average at the start, end of each fifth |',
    );
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const r of results) {
      const { first, last } = rates(r);
      const cpu = cpuPerStudy(r);
      console.log(
        `| ${r.studies} | ${first.toFixed(1)} | ${last.toFixed(1)} | ${(last / first).toFixed(2)} | ${cpu.first.toFixed(0)} | ${cpu.last.toFixed(0)} | ${(r.fifths[4]! / 1000).toFixed(1)} s | ${r.outsideRss === undefined ? 'no /usr/bin/time' : mb(r.outsideRss)} | ${mb(r.peakRss)} | ${mb(r.peakRssCases)} | ${r.load.map((l) => l.toFixed(1)).join(' → ')} |`,
      );
    }
    console.log('');
    console.log(
      '| studies | thread | live heap after GC, end of each fifth | external memory after GC | peak heap used (until the last study ended) | peak heap reserved |',
    );
    console.log('| ---: | --- | --- | --- | ---: | ---: |');
    for (const r of results)
      for (const t of r.threads)
        console.log(
          `| ${r.studies} | ${t.thread} | ${t.liveAfterGc.map(mb).join(' → ')} | ${t.externalAfterGc.map(mb).join(' → ')} | ${mb(t.peakUsed)} (${mb(t.peakUsedCases)}) | ${mb(t.peakTotal)} |`,
        );
    const [small, big] = results as [Measured, Measured];
    const { first, last } = rates(big);
    const rate = last / first;
    // The kernel's peak, from outside, where GNU time is there to tell it; else the sampled one.
    const outside = small.outsideRss !== undefined && big.outsideRss !== undefined;
    const smallRss = outside ? small.outsideRss! : small.peakRss;
    const bigRss = outside ? big.outsideRss! : big.peakRss;
    const rss = bigRss / smallRss;
    console.log('');
    console.log(
      `rate of the last fifth / first fifth at ${big.studies} studies: ${rate.toFixed(2)}x (target: >= ${RATE_TARGET}) ${verdict(rate >= RATE_TARGET)}`,
    );
    const cpu = cpuPerStudy(big);
    const system = cpuPerStudy(big, 'systemFifths');
    console.log(
      `CPU per study, last / first fifth at ${big.studies} studies: ${(cpu.last / cpu.first).toFixed(2)}x (no target; above 1 the run itself does more per study as it goes, below the rate's ratio the machine got busier); of it the kernel's: ${system.first.toFixed(0)} → ${system.last.toFixed(0)} ms per study`,
    );
    console.log(
      `peak RSS ${big.studies} / ${small.studies} studies, --workers 2, ${outside ? 'measured from outside (/usr/bin/time)' : 'sampled inside (no /usr/bin/time here)'}: ${rss.toFixed(2)}x (${mb(smallRss)} → ${mb(bigRss)}; target: <= ${RSS_TARGET}) ${verdict(rss <= RSS_TARGET)}`,
    );
    for (const t of big.threads) {
      const live = t.liveAfterGc;
      const growth = live[live.length - 1]! / live[0]!;
      console.log(
        `${t.thread}: live heap after GC, last / first fifth at ${big.studies}: ${growth.toFixed(2)}x (${mb(live[0]!)} → ${mb(live[live.length - 1]!)}; target: <= ${RSS_TARGET}) ${verdict(growth <= RSS_TARGET)}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
