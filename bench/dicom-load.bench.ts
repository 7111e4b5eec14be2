// The reference workbench loading a 300-slice 512×512 int16 CT series (file names not in slice
// order) by file reference to one of its files, against dcm2niix converting the same folder
// (it reads and also writes a NIfTI), alternately, each run a process of its own; then the same
// series as JPEG 2000 lossless. Targets: raw ≤ 1.0× dcm2niix, JPEG 2000 ≤ 1.5×; peak RSS growth
// of the load ≤ 2× the volume (MITK holds this series as int32: 300 × 512² × 4 bytes).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSeries, SIZE, SLICES } from './dicom-series.js';

const RUNS = Number(process.env.WBPLAY_BENCH_DICOM_RUNS ?? 3);
const MB = 1e6;
const root = fileURLToPath(new URL('..', import.meta.url));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function python(): string | undefined {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(candidate, ['-c', 'import pydicom, numpy'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}

function ours(folder: string): { ms: number; growth: number } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench/dicom-load-run.ts'), folder], {
    cwd: root,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`the load failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { ms: number; growth: number };
}

async function dcm2niix(folder: string): Promise<number> {
  const out = await mkdtemp(join(tmpdir(), 'wbplay-dcm2niix-'));
  try {
    const t0 = performance.now();
    const run = spawnSync('dcm2niix', ['-o', out, '-f', 'ct', '-z', 'n', folder], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`dcm2niix failed: ${run.stderr || run.stdout}`);
    return performance.now() - t0;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

export default async function bench(): Promise<void> {
  const py = python();
  const missing =
    py === undefined
      ? 'python3 with pydicom and numpy'
      : ['dcm2niix', 'gdcmconv'].find((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing !== undefined) {
    console.log(`dicom-load: ${missing} is not installed; nothing measured`);
    return;
  }
  const { raw, j2k } = await benchSeries(join(root, '.bench-tmp', 'dicom'), py!);
  const volumeBytes = SLICES * SIZE * SIZE * 4;
  console.log(
    `series: ${SLICES} slices of ${SIZE}×${SIZE} int16, the volume ${(volumeBytes / MB).toFixed(0)} MB as MITK holds it (int32); ${RUNS} alternating runs each, medians`,
  );
  console.log('| series | wbplay load ms | dcm2niix ms | ratio | target | peak RSS growth MB | × volume | verdict |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const [label, folder, target] of [
    ['raw (explicit VR LE)', raw, 1.0],
    ['JPEG 2000 lossless', j2k, 1.5],
  ] as const) {
    const loads: number[] = [];
    const growths: number[] = [];
    const refs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const a = ours(folder);
      loads.push(a.ms);
      growths.push(a.growth);
      refs.push(await dcm2niix(folder));
    }
    const ratio = median(loads) / median(refs);
    const memory = Math.max(...growths) / volumeBytes;
    const met = ratio <= target && memory <= 2;
    console.log(
      `| ${label} | ${median(loads).toFixed(0)} | ${median(refs).toFixed(0)} | ${ratio.toFixed(2)} | ≤ ${target.toFixed(1)} | ${(Math.max(...growths) / MB).toFixed(0)} | ${memory.toFixed(2)} | ${met ? 'MET' : 'MISSED'} |`,
    );
  }
}
