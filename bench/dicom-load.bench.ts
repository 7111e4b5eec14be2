// The reference workbench (`wbplay serve` from the built package, a process of its own) loading
// a 300-slice 512×512 int16 CT series (file names not in slice order) by file reference to one
// of its files, as a playbook's `load` does, against dcm2niix converting the same folder (it
// reads and also writes a NIfTI), alternately; then the same series as JPEG 2000 lossless.
// Each load goes to a fresh server. Targets: raw ≤ 1.0× dcm2niix, JPEG 2000 ≤ 1.5×; the
// server's peak RSS growth during the load ≤ 2× the volume (MITK holds this series as int32:
// 300 × 512² × 4 bytes). Last, the same series as one 300-frame Enhanced CT file against its 300
// files, both loaded by wbplay: target ≤ 1.0× (a multi-frame file loads at the series' pace).
// The decode pool has a thread per core; since the machine may be shared, each row says how many
// cores were free while it ran: the cores less the 1-minute load average taken before each load
// (the median of them), beside that load average.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage, PACKAGE_CLI } from './built.js';
import { benchSeries, SIZE, SLICES, pythonWith } from './dicom-series.js';

const RUNS = Number(process.env.WBPLAY_BENCH_DICOM_RUNS ?? 3);
const MB = 1e6;
const root = fileURLToPath(new URL('..', import.meta.url));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** VmRSS and VmHWM (the peak) of a process, in bytes, from /proc. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function ours(folder: string, file: string): Promise<{ ms: number; growth: number }> {
  const child = spawn(process.execPath, [PACKAGE_CLI, 'serve', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (c: Buffer) => {
        text += c.toString();
        const m = /listening on (\S+)/.exec(text);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`wbplay serve exited (${code})`)));
    });
    const before = memory(child.pid!);
    const t0 = performance.now();
    const res = await fetch(`${url}/api/v1/datastorage/nodes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ct', transfer: { file_path: join(folder, file) } }),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 201) throw new Error(`the load failed: ${res.status} ${text.slice(0, 300)}`);
    return { ms, growth: memory(child.pid!).peak - before.rss };
  } finally {
    child.kill();
  }
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
  const py = pythonWith('pydicom, numpy');
  const missing =
    py === undefined
      ? 'python3 with pydicom and numpy'
      : ['dcm2niix', 'gdcmconv'].find((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing !== undefined) {
    console.log(`dicom-load: ${missing} is not installed; nothing measured`);
    return;
  }
  buildPackage();
  const { raw, j2k, enhanced } = await benchSeries(join(root, '.bench-tmp', 'dicom'), py!);
  const volumeBytes = SLICES * SIZE * SIZE * 4;
  console.log(
    `series: ${SLICES} slices of ${SIZE}×${SIZE} int16, the volume ${(volumeBytes / MB).toFixed(0)} MB as MITK holds it (int32); ${RUNS} alternating runs each, medians; peak RSS growth is the largest`,
  );
  const cores = availableParallelism();
  console.log(
    '| series | wbplay load ms | dcm2niix ms | ratio | target | peak RSS growth MB | × volume | verdict | cores free | load average |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |');
  const fastest: string[] = [];
  for (const [label, folder, target] of [
    ['raw (explicit VR LE)', raw, 1.0],
    ['JPEG 2000 lossless', j2k, 1.5],
  ] as const) {
    const file = (await readdir(folder)).sort()[0]!;
    const loads: number[] = [];
    const growths: number[] = [];
    const refs: number[] = [];
    const loads1m: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      loads1m.push(loadavg()[0]!);
      const a = await ours(folder, file);
      loads.push(a.ms);
      growths.push(a.growth);
      refs.push(await dcm2niix(folder));
    }
    const ratio = median(loads) / median(refs);
    const memoryRatio = Math.max(...growths) / volumeBytes;
    const verdict = ratio <= target && memoryRatio <= 2 ? 'MET' : 'MISSED';
    const load = median(loads1m);
    const free = Math.max(0, cores - load);
    console.log(
      `| ${label} | ${median(loads).toFixed(0)} | ${median(refs).toFixed(0)} | ${ratio.toFixed(2)} | ≤ ${target.toFixed(1)} | ${(Math.max(...growths) / MB).toFixed(0)} | ${memoryRatio.toFixed(2)} | ${verdict} | ${free.toFixed(1)} of ${cores} | ${load.toFixed(2)} |`,
    );
    // dcm2niix writes its NIfTI, and a write that meets the kernel flushing earlier ones can take
    // twice as long: the fastest runs of each, side by side, show what a median may hide.
    fastest.push(
      `${label}: fastest ${Math.min(...loads).toFixed(0)} ms against dcm2niix ${Math.min(...refs).toFixed(0)} ms, ${(Math.min(...loads) / Math.min(...refs)).toFixed(2)}×`,
    );
  }
  for (const line of fastest) console.log(line);
  console.log('');
  console.log(
    `the same series as one ${SLICES}-frame Enhanced CT file against its ${SLICES} files, both loaded by wbplay`,
  );
  console.log(
    '| series | one file ms | 300 files ms | ratio | target | peak RSS growth MB | × volume | verdict | cores free | load average |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |');
  const single: number[] = [];
  const files: number[] = [];
  const growths: number[] = [];
  const loads1m: number[] = [];
  const rawFile = (await readdir(raw)).sort()[0]!;
  for (let i = 0; i < RUNS; i++) {
    loads1m.push(loadavg()[0]!);
    const a = await ours(enhanced, 'ct-enhanced.dcm');
    single.push(a.ms);
    growths.push(a.growth);
    files.push((await ours(raw, rawFile)).ms);
  }
  const ratio = median(single) / median(files);
  const memoryRatio = Math.max(...growths) / volumeBytes;
  const load = median(loads1m);
  const free = Math.max(0, cores - load);
  console.log(
    `| enhanced ${SLICES}-frame (raw) | ${median(single).toFixed(0)} | ${median(files).toFixed(0)} | ${ratio.toFixed(2)} | ≤ 1.0 | ${(Math.max(...growths) / MB).toFixed(0)} | ${memoryRatio.toFixed(2)} | ${ratio <= 1 && memoryRatio <= 2 ? 'MET' : 'MISSED'} | ${free.toFixed(1)} of ${cores} | ${load.toFixed(2)} |`,
  );
}
