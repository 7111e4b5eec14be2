// Cohorts from a DICOMweb archive against the same data from a local export, on a real Orthanc
// (test/helpers/orthanc.ts). Every `wbplay run` is the built package in a process of its own on
// its embedded workbench, so both sides of a comparison start, compile and load the same way.
//  1. retrieve + load: a one-case `foreach: dicomweb` run loading the 300-slice 512×512 CT of
//     dicom-series.ts into an empty cache, against curl fetching the series over WADO-RS plus the
//     same run over the local files (`foreach: dicom`). Target ≤ 1.2×; peak RSS ≤ 64 MB above the
//     local run's.
//  2. cohort: 20 series of 64 × 256² (four to a study), load, reinit and four screenshots each,
//     one worker, against the local export. Target ≤ 1.15×; prefetch off is printed beside it,
//     and the retrieval alone (the library, no workbench) against plain undici reading the same
//     answers: the pace prefetch must keep up with.
//  3. search: QIDO-RS over 2,000 one-instance studies through the library (searchArchive), its
//     requests counted, against the same pages fetched back to back by plain undici
//     (bench/dicomweb-search.ts).
// Sides alternate; nothing is asserted about timings. WBPLAY_BENCH_DICOMWEB_RUNS (5),
// _SERIES (20), _STUDIES (2000) and _PARTS (retrieve,cohort,search) shrink it.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { SeriesCache } from '../src/dicomweb/index.js';
import { orthancUnavailable, startOrthanc, type Orthanc } from '../test/helpers/orthanc.js';
import { buildPackage } from './built.js';
import { benchSeries, pythonWith, SIZE, SLICES } from './dicom-series.js';
import { cohortSeries, filesUnder, type SeriesSet } from './dicomweb-data.js';
import {
  archiveOf,
  basicAuth,
  credentials,
  loadNow,
  median,
  PEAK_SOURCE,
  playbook,
  pushed,
  runFolder,
  sum,
  timed,
  wbplayRun,
  type RunFigures,
  type Timed,
} from './dicomweb-runs.js';
import { searchBench } from './dicomweb-search.js';

const RUNS = whole('WBPLAY_BENCH_DICOMWEB_RUNS', 5, 1, 50);
const SERIES = whole('WBPLAY_BENCH_DICOMWEB_SERIES', 20, 2, 400);
const STUDIES = whole('WBPLAY_BENCH_DICOMWEB_STUDIES', 2000, 10, 20_000);
const PARTS = (process.env.WBPLAY_BENCH_DICOMWEB_PARTS ?? 'retrieve,cohort,search').split(',');
const TARGET = { retrieve: 1.2, rssMb: 64, cohort: 1.15 };
const ACCEPT = 'multipart/related; type="application/dicom"';
const root = fileURLToPath(new URL('..', import.meta.url));
const dataRoot = join(root, '.bench-tmp', 'dicomweb');

function whole(name: string, fallback: number, min: number, max: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got '${text}'`);
  return n;
}

const verdict = (value: number, target: number): string =>
  `${value.toFixed(3)}× (target ≤ ${target}×) ${value <= target ? 'MET' : 'MISSED'}`;

const LOAD = 'load: { file: "${study.path}", as: ct }';
const CASE_STEPS = [
  LOAD,
  'reinit: { nodes: [ct] }',
  ...['axial', 'sagittal', 'coronal', '3d'].map(
    (w) => `screenshot: { of: stdmulti/${w}, save: "\${out}/\${study.name}/${w}.png" }`,
  ),
];

/** Part 1: the 300-slice CT retrieved into an empty cache and loaded, against curl + the local load. */
async function retrieveAndLoad(orthanc: Orthanc, python: string, work: string): Promise<void> {
  const { raw } = await benchSeries(join(root, '.bench-tmp', 'dicom'), python);
  const files = await filesUnder(raw);
  await pushed(orthanc, files, `the ${SLICES}-slice ${SIZE}×${SIZE} CT`);
  const where = 'where: { PatientID: BENCH }';
  const remote = await runFolder(work, 'ct-dicomweb', playbook(`dicomweb: ${orthanc.dicomweb}\n${where}`, [LOAD]));
  const local = await runFolder(work, 'ct-local', playbook(`dicom: ${raw}\n${where}`, [LOAD]));
  const env = credentials(orthanc);
  const series = `${orthanc.dicomweb}/studies/1.2.826.0.1.3680043.8.498.77.0/series/1.2.826.0.1.3680043.8.498.77.1`;
  const curl = async (): Promise<Timed> => {
    const file = join(work, 'series.multipart');
    const args = ['-s', '-f', '-u', `${orthanc.user}:${orthanc.password}`, '-H', `Accept: ${ACCEPT}`, series];
    const run = await timed('curl', [...args, '-o', file], work, env);
    await rm(file, { force: true });
    return run;
  };
  const rows: { ours: RunFigures; curl: Timed; local: RunFigures }[] = [];
  const loads = [loadNow()];
  // Round 0 warms the page cache and Orthanc; the order turns each round.
  for (let round = 0; round <= RUNS; round++) {
    const row: Partial<(typeof rows)[0]> = {};
    const ours = async (): Promise<void> => void (row.ours = await wbplayRun(remote, 'playbook.yaml', 1, env));
    const baseline = async (): Promise<void> => {
      row.curl = await curl();
      row.local = await wbplayRun(local, 'playbook.yaml', 1, env);
    };
    for (const side of round % 2 === 0 ? [ours, baseline] : [baseline, ours]) await side();
    if (round > 0) rows.push(row as (typeof rows)[0]);
  }
  loads.push(loadNow());
  console.log(
    `\n### retrieve + load: ${SLICES} slices of ${SIZE}×${SIZE} int16 from Orthanc into an empty cache; ${RUNS} alternating rounds after a warm-up; load average ${loads.join(' -> ')}`,
  );
  console.log(
    'wbplay: `wbplay run` of a one-case `foreach: dicomweb` playbook with one `load`, embedded workbench (a process of its own)',
  );
  console.log(
    'baseline: curl over WADO-RS into one file, plus `wbplay run` of the same playbook with `foreach: dicom` over the local files, embedded workbench',
  );
  console.log(
    '| round | wbplay ms | its load step ms | curl ms | local run ms | its load step ms | curl + local ms | ratio | wbplay peak MB | local peak MB |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const f = (n: number): string => n.toFixed(0);
  rows.forEach((r, i) => {
    const base = r.curl.ms + r.local.ms;
    console.log(
      `| ${i + 1} | ${f(r.ours.ms)} | ${f(r.ours.loadMs)} | ${f(r.curl.ms)} | ${f(r.local.ms)} | ${f(r.local.loadMs)} | ${f(base)} | ${(r.ours.ms / base).toFixed(2)} | ${f(r.ours.peakMb)} | ${f(r.local.peakMb)} |`,
    );
  });
  const m = (g: (r: (typeof rows)[0]) => number): number => median(rows.map(g));
  console.log(
    `| median | ${f(m((r) => r.ours.ms))} | ${f(m((r) => r.ours.loadMs))} | ${f(m((r) => r.curl.ms))} | ${f(m((r) => r.local.ms))} | ${f(m((r) => r.local.loadMs))} | ${f(m((r) => r.curl.ms + r.local.ms))} | ${m((r) => r.ours.ms / (r.curl.ms + r.local.ms)).toFixed(2)} | ${f(m((r) => r.ours.peakMb))} | ${f(m((r) => r.local.peakMb))} |`,
  );
  console.log(
    `loads sent as: wbplay ${[...new Set(rows.flatMap((r) => r.ours.sent))].join(', ')}; local ${[...new Set(rows.flatMap((r) => r.local.sent))].join(', ')}`,
  );
  console.log(
    `retrieve + load / (curl + local load): ${verdict(
      m((r) => r.ours.ms / (r.curl.ms + r.local.ms)),
      TARGET.retrieve,
    )}`,
  );
  const extra = m((r) => r.ours.peakMb) - m((r) => r.local.peakMb);
  console.log(
    `peak RSS above the local run's (medians; ${PEAK_SOURCE}): ${extra.toFixed(0)} MB (target ≤ ${TARGET.rssMb} MB) ${extra <= TARGET.rssMb ? 'MET' : 'MISSED'}`,
  );
}

/**
 * The cohort's series retrieved in this process one after another into an empty cache
 * (Archive.retrieveSeries), against plain undici reading the same WADO-RS answers and dropping
 * them: the pace prefetch has to keep up with, without a workbench beside it.
 */
async function retrievalAlone(
  orthanc: Orthanc,
  set: SeriesSet,
  work: string,
): Promise<{ ours: number; plain: number }> {
  const dir = await mkdtemp(join(work, 'cache-'));
  const archive = archiveOf(orthanc);
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  try {
    const t0 = performance.now();
    for (const ref of set.series) await archive.retrieveSeries(ref, new SeriesCache(dir));
    const ours = performance.now() - t0;
    const t1 = performance.now();
    for (const ref of set.series) {
      const url = `${orthanc.dicomweb}/studies/${ref.study}/series/${ref.series}`;
      const res = await request(url, {
        dispatcher: agent,
        headers: { accept: ACCEPT, authorization: basicAuth(orthanc) },
      });
      for await (const chunk of res.body) void chunk;
      if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
    }
    return { ours, plain: performance.now() - t1 };
  } finally {
    await archive.close();
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }
}

type CohortSide = 'dicomweb' | 'local' | 'no prefetch';
const COHORT_SIDES: CohortSide[] = ['dicomweb', 'local', 'no prefetch'];

/** Part 2: a cohort of series from Orthanc (prefetch on and off) against the same series from the local export. */
async function cohort(orthanc: Orthanc, python: string, work: string): Promise<void> {
  const set = await cohortSeries(dataRoot, python, SERIES);
  await pushed(orthanc, set.files, `${SERIES} series of 64 × 256²`);
  const where = `where: { PatientID: "${set.patientPrefix}*" }`;
  const remote = playbook(`dicomweb: ${orthanc.dicomweb}\n${where}`, CASE_STEPS);
  const dirs: Record<CohortSide, string> = {
    dicomweb: await runFolder(work, 'cohort-dicomweb', remote),
    local: await runFolder(work, 'cohort-local', playbook(`dicom: ${set.dir}\n${where}`, CASE_STEPS)),
    'no prefetch': await runFolder(work, 'cohort-no-prefetch', remote, 'dicomweb: { prefetch: 0 }\n'),
  };
  const env = credentials(orthanc);
  const runs: Record<CohortSide, RunFigures[]> = { dicomweb: [], local: [], 'no prefetch': [] };
  const loads = [loadNow()];
  for (let round = 0; round < RUNS; round++) {
    for (const side of COHORT_SIDES.map((_, i) => COHORT_SIDES[(i + round) % COHORT_SIDES.length]!))
      runs[side].push(await wbplayRun(dirs[side], 'playbook.yaml', SERIES, env));
  }
  loads.push(loadNow());
  const studies = Math.ceil(SERIES / 4);
  console.log(
    `\n### cohort: ${SERIES} series of 64 × 256² in ${studies} studies, each loaded, reinit and 4 screenshots; one worker, embedded workbench; ${RUNS} rounds, the order turning; load average ${loads.join(' -> ')}`,
  );
  console.log(
    '| round | dicomweb s | local s | no prefetch s | dicomweb / local | no prefetch / local | steps s (dicomweb, local, no prefetch) |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  const s = (ms: number): string => (ms / 1000).toFixed(2);
  for (let i = 0; i < RUNS; i++) {
    const [a, b, c] = COHORT_SIDES.map((side) => runs[side][i]!) as [RunFigures, RunFigures, RunFigures];
    console.log(
      `| ${i + 1} | ${s(a.ms)} | ${s(b.ms)} | ${s(c.ms)} | ${(a.ms / b.ms).toFixed(2)} | ${(c.ms / b.ms).toFixed(2)} | ${s(a.stepsMs)}, ${s(b.stepsMs)}, ${s(c.stepsMs)} |`,
    );
  }
  const alone: { ours: number; plain: number }[] = [];
  for (let i = 0; i < 3; i++) alone.push(await retrievalAlone(orthanc, set, work));
  const bytes = sum(set.files.map((f) => statSync(f).size));
  const ours = median(alone.map((a) => a.ours));
  const plain = median(alone.map((a) => a.plain));
  const perCase = median(runs.local.map((r) => r.stepsMs)) / SERIES;
  console.log(
    `retrieval alone, ${(bytes / 1e6).toFixed(0)} MB, in this process, medians of 3: wbplay ${ours.toFixed(0)} ms (${(ours / SERIES).toFixed(0)} ms a series, ${(bytes / 1e3 / ours).toFixed(0)} MB/s); plain undici reading the same answers ${plain.toFixed(0)} ms (${(plain / SERIES).toFixed(0)} ms a series); a local case's steps take ${perCase.toFixed(0)} ms`,
  );
  const ratio = (side: CohortSide): number => median(runs[side].map((r, i) => r.ms / runs.local[i]!.ms));
  const peaks = COHORT_SIDES.map((side) => `${side} ${median(runs[side].map((r) => r.peakMb)).toFixed(0)}`);
  console.log(`peak RSS MB, medians: ${peaks.join(', ')}`);
  console.log(`dicomweb / local (medians of the rounds' ratios): ${verdict(ratio('dicomweb'), TARGET.cohort)}`);
  console.log(`prefetch off / local: ${ratio('no prefetch').toFixed(2)}× (no target: what prefetch buys)`);
}

export default async function bench(): Promise<void> {
  const python = pythonWith('pydicom, numpy');
  const missing =
    python === undefined
      ? 'python3 with pydicom and numpy'
      : ((await orthancUnavailable()) ??
        (spawnSync('sh', ['-c', 'command -v curl']).status !== 0 ? 'curl' : undefined));
  if (missing !== undefined) {
    console.log(`dicomweb: ${missing} is missing; nothing measured`);
    return;
  }
  console.log(
    `${availableParallelism()} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`peak RSS: ${PEAK_SOURCE}`);
  buildPackage();
  const work = await mkdtemp(join(tmpdir(), 'wbplay-dicomweb-bench-'));
  // A part that fails (wbplay exiting with an error) is reported and the next one still runs.
  const part = async (name: string, body: () => Promise<void>): Promise<void> => {
    if (!PARTS.includes(name)) return;
    try {
      await body();
    } catch (err) {
      console.log(`\n### ${name}: FAILED, nothing measured (MISSED)\n${(err as Error).message}`);
    }
  };
  try {
    if (PARTS.includes('retrieve') || PARTS.includes('cohort')) {
      const orthanc = await startOrthanc();
      try {
        await part('retrieve', () => retrieveAndLoad(orthanc, python!, work));
        await part('cohort', () => cohort(orthanc, python!, work));
      } finally {
        await orthanc.stop();
      }
    }
    await part('search', () => searchBench(python!, dataRoot, RUNS, STUDIES));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  console.log(
    `\nload average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}
