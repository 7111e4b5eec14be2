// Cohorts of many tiny studies (24x20x16 voxels, one screenshot each, on one embedded reference
// workbench, json and html reports), in one process: how the cost per study, the memory, the
// resume journal and the HTML report grow with the cohort. `npm run bench -- scale` runs 1,000
// and 2,000 studies (about three minutes here); WBPLAY_BENCH_BIG=1 runs 1,000 and 10,000 (much
// longer), as the targets are stated. Then merge-reports of generated shard reports (10 and 100
// shards of 100 studies each), each merge in a process of its own: its time and peak memory
// (WBPLAY_BENCH_MERGE_ONLY=1 runs these merges alone).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { loadPlaybook } from '../src/compile/index.js';
import { createReporters } from '../src/report/factory.js';
import { writeJsonReport } from '../src/report/json.js';
import { runOf } from '../src/result/case-list.js';
import { summarize, type CaseResult } from '../src/result/result.js';
import { runPlans } from '../src/run/runner.js';
import { embeddedWorkbenches } from '../src/sim/embedded.js';
import { writeNrrd } from '../src/volume/nrrd-writer.js';
import { IDENTITY, type Volume } from '../src/volume/volume.js';

const SIZES = process.env.WBPLAY_BENCH_BIG === '1' ? [1000, 10_000] : [1000, 2000];

const PLAYBOOK = `version: 1
name: Scale
foreach:
  csv: studies.csv
steps:
  - load: { file: tiny.nrrd, as: img }
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}.png", width: 64, height: 64 }
`;

interface Figures {
  studies: number;
  firstTenthMs: number;
  lastTenthMs: number;
  peakRss: number;
  journalBytesPerStudy: number;
  reportBytes: number;
  htmlLoadMs: number | undefined;
  /** From typing the last study's name in the report's search box to the list showing it alone. */
  htmlSearchMs: number | undefined;
}

async function tinyVolume(dir: string): Promise<void> {
  const [w, h, d] = [24, 20, 16];
  const frame = new Float32Array(w * h * d);
  for (let i = 0; i < frame.length; i++) frame[i] = (i * 7) % 251;
  const volume: Volume = {
    dims: [w, h, d],
    spacing: [1, 1, 1],
    origin: [0, 0, 0],
    direction: IDENTITY,
    frames: [frame],
    timeStepMs: 0,
    timeOriginMs: 0,
    componentType: 'uint8',
    range: [0, 250],
  };
  await writeFile(join(dir, 'tiny.nrrd'), writeNrrd(volume));
}

async function cohort(n: number, root: string): Promise<Figures> {
  const dir = join(root, `n${n}`);
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  await tinyVolume(dir);
  await writeFile(
    join(dir, 'studies.csv'),
    `name\n${Array.from({ length: n }, (_, i) => `s${String(i).padStart(5, '0')}`).join('\n')}\n`,
  );
  await writeFile(join(dir, 'scale.yaml'), PLAYBOOK);
  const out = join(dir, 'out');
  const plan = loadPlaybook(join(dir, 'scale.yaml'), { vars: { out } });
  const ends: number[] = [];
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const reporter = createReporters(['json', 'html'], {
    outputDir: out,
    stream: { write: () => true },
    isTTY: false,
    env: {},
  });
  const started = performance.now();
  await runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: {
      ...reporter,
      onCaseEnd: (r) => {
        reporter.onCaseEnd?.(r);
        ends.push(performance.now());
      },
      onRunStart: (i) => reporter.onRunStart?.(i),
      onRunEnd: (r) => reporter.onRunEnd?.(r),
      onStepEnd: (c, s) => reporter.onStepEnd?.(c, s),
      onNotice: (m) => reporter.onNotice?.(m),
    },
    outputDir: out,
  });
  clearInterval(sampler);
  const tenth = Math.max(1, Math.floor(n / 10));
  const span = (a: number, b: number): number => ((ends[b - 1] ?? 0) - (a === 0 ? started : ends[a - 1]!)) / (b - a);
  const journal = (await stat(join(out, 'wbplay-journal.jsonl')).catch(() => undefined))?.size ?? 0;
  return {
    studies: n,
    firstTenthMs: span(0, tenth),
    lastTenthMs: span(n - tenth, n),
    peakRss: peak,
    journalBytesPerStudy: journal / n,
    reportBytes: (await readFile(join(out, 'report.json'))).length,
    ...(await htmlTimes(join(out, 'report.html'), n, `s${String(n - 1).padStart(5, '0')}`)),
  };
}

/**
 * Navigation to the load event of the report, and a first search in it (for one study), in
 * headless Chromium; medians of three fresh pages.
 */
async function htmlTimes(
  file: string,
  studies: number,
  study: string,
): Promise<{ htmlLoadMs: number | undefined; htmlSearchMs: number | undefined }> {
  let browser;
  try {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  } catch {
    return { htmlLoadMs: undefined, htmlSearchMs: undefined };
  }
  try {
    const loads: number[] = [];
    const searches: number[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await browser.newPage();
      let t0 = performance.now();
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 120_000 });
      loads.push(performance.now() - t0);
      t0 = performance.now();
      await page.locator('#search').fill(study);
      await page
        .locator('#shown')
        .filter({ hasText: new RegExp(`^1 of ${studies} cases shown$`) })
        .waitFor({ timeout: 120_000 });
      searches.push(performance.now() - t0);
      await page.close();
    }
    return { htmlLoadMs: median(loads), htmlSearchMs: median(searches) };
  } finally {
    await browser.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`;

const STUDIES_PER_SHARD = 100;
const MERGES = [10, 100];

/** A case as a scale run writes it: a load and a screenshot of one study, with its artefact. */
function studyCase(id: string): CaseResult {
  const span = (line: number) => ({ file: 'scale.yaml', line, col: 5 });
  const attempt = { n: 1, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 3 };
  return {
    id,
    name: `Scale · ${id}`,
    playbook: 'scale.yaml',
    study: { name: id },
    status: 'passed',
    durationMs: 9,
    workbench: 'embedded #1',
    steps: [
      {
        index: 1,
        kind: 'load',
        description: 'tiny.nrrd as img',
        span: span(6),
        status: 'passed',
        durationMs: 4,
        attempts: [attempt],
        args: { file: 'tiny.nrrd', as: 'img' },
        resolvedArgs: { file: '/data/tiny.nrrd', as: 'img', uid: `n-${id}` },
        artefacts: [],
        notices: [],
      },
      {
        index: 2,
        kind: 'screenshot',
        description: `stdmulti/axial to out/${id}.png`,
        span: span(7),
        status: 'passed',
        durationMs: 5,
        attempts: [attempt],
        args: { of: 'stdmulti/axial', save: `out/${id}.png`, width: 64, height: 64 },
        artefacts: [{ kind: 'screenshot', path: `${id}.png` }],
        notices: [],
      },
    ],
  };
}

/** `shards` shard folders of 100 studies each, studies dealt round-robin as a hash would spread them. */
async function shardReports(root: string, shards: number): Promise<string[]> {
  const dirs: string[] = [];
  const total = shards * STUDIES_PER_SHARD;
  for (let s = 0; s < shards; s++) {
    const cases: CaseResult[] = [];
    for (let i = s; i < total; i += shards) cases.push(studyCase(`s${String(i).padStart(5, '0')}`));
    const dir = join(root, `shards-${shards}`, `shard-${s + 1}`);
    await writeJsonReport(
      runOf({
        version: 1,
        startedAt: new Date(Date.UTC(2026, 0, 1, 0, s)).toISOString(),
        durationMs: 60_000,
        status: 'passed',
        provenance: { playbooks: [{ path: 'scale.yaml', sha256: 'ab'.repeat(32) }], wbplay: '0.1.0' },
        cases,
        summary: summarize(cases),
      }),
      dir,
    );
    dirs.push(dir);
  }
  return dirs;
}

interface MergeFigures {
  shards: number;
  cases: number;
  ms: number;
  peakRss: number;
}

/** merge-reports of the shards in a fresh process (bench/merge-shards.ts), as the CLI runs it. */
async function mergeOf(root: string, shards: number): Promise<MergeFigures> {
  const dirs = await shardReports(root, shards);
  const script = fileURLToPath(new URL('merge-shards.ts', import.meta.url));
  const out = join(root, `merged-${shards}`);
  const text = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, out, ...dirs], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`merge exited with ${code}`))));
  });
  const figures = JSON.parse(text) as { ms: number; peakRss: number; cases: number };
  return { shards, ...figures };
}

async function merges(root: string): Promise<void> {
  const results: MergeFigures[] = [];
  for (const n of MERGES) results.push(await mergeOf(root, n));
  console.log('');
  console.log('| merge-reports | cases | time | ms/case | peak RSS |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of results)
    console.log(
      `| ${r.shards} shards × ${STUDIES_PER_SHARD} | ${r.cases} | ${(r.ms / 1000).toFixed(2)} s | ${(r.ms / r.cases).toFixed(3)} | ${mb(r.peakRss)} |`,
    );
  const [small, big] = results as [MergeFigures, MergeFigures];
  console.log(
    `merge peak RSS ${big.shards} / ${small.shards} shards: ${(big.peakRss / small.peakRss).toFixed(2)}x (target: <= 1.2)`,
  );
  console.log(
    `merge time per case ${big.shards} / ${small.shards} shards: ${(big.ms / big.cases / (small.ms / small.cases)).toFixed(2)}x (target: <= 1.2); ${big.cases} cases in ${(big.ms / 1000).toFixed(2)} s (target: <= 10 s)`,
  );
}

export default async function scale(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'wbplay-bench-scale-'));
  try {
    // The merges alone take a minute; the cohorts much longer.
    if (process.env.WBPLAY_BENCH_MERGE_ONLY === '1') return await merges(root);
    const results: Figures[] = [];
    for (const n of SIZES) results.push(await cohort(n, root));
    console.log(
      '| studies | ms/study first 10% | ms/study last 10% | last/first (target <= 1.1) | peak RSS | journal bytes/study | report.json | report.html load | first search |',
    );
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results) {
      console.log(
        `| ${r.studies} | ${r.firstTenthMs.toFixed(1)} | ${r.lastTenthMs.toFixed(1)} | ${(r.lastTenthMs / r.firstTenthMs).toFixed(2)} | ${mb(r.peakRss)} | ${r.journalBytesPerStudy.toFixed(0)} | ${mb(r.reportBytes)} | ${r.htmlLoadMs === undefined ? 'no Chromium' : `${r.htmlLoadMs.toFixed(0)} ms`} | ${r.htmlSearchMs === undefined ? 'no Chromium' : `${r.htmlSearchMs.toFixed(0)} ms`} |`,
      );
    }
    const [small, big] = results as [Figures, Figures];
    console.log(
      `peak RSS ${big.studies} / ${small.studies}: ${(big.peakRss / small.peakRss).toFixed(2)}x (target at 10,000 / 1,000: <= 1.2)`,
    );
    console.log(
      `journal bytes per study ${big.studies} / ${small.studies}: ${(big.journalBytesPerStudy / small.journalBytesPerStudy).toFixed(2)}x (flat: 1.0)`,
    );
    console.log(
      `HTML report load at ${big.studies}: ${big.htmlLoadMs === undefined ? 'no Chromium' : `${big.htmlLoadMs.toFixed(0)} ms`} (target at 10,000: <= 1000 ms)`,
    );
    console.log(
      `HTML report, first search for one study at ${big.studies}: ${big.htmlSearchMs === undefined ? 'no Chromium' : `${big.htmlSearchMs.toFixed(0)} ms`} (no target: the search reads an index and unpacks only the page of the match)`,
    );
    await merges(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
