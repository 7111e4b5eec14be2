// (Not named dicom-*: `npm run bench -- dicom` runs the reader's targets and the scan's alone.)
// `load` of the 300-slice 512×512 CT series (bench/dicom-series.ts) on a workbench that cannot
// read the files (its allowed directories elsewhere, as on another machine), where the series is
// read here and sent as one NRRD, against the same load on a workbench that reads the files
// itself (a file reference), alternately, in this process. The remote path does the reading the
// workbench would do, plus encoding and sending: the ratio says what a workbench elsewhere costs.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../src/client/index.js';
import { startReferenceWorkbench } from '../src/sim/server.js';
import { createDicomNode } from '../src/steps/load-dicom.js';
import { readDicom } from '../src/volume/dicom/index.js';
import { writeNrrd } from '../src/volume/nrrd-writer.js';
import { benchSeries, pythonWith } from './dicom-series.js';

const RUNS = Number(process.env.WBPLAY_BENCH_DICOM_RUNS ?? 3);
const root = fileURLToPath(new URL('..', import.meta.url));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function loadOnce(file: string, allowedDirs: string[]): Promise<{ ms: number; sent: string }> {
  const handle = await startReferenceWorkbench({ host: '127.0.0.1', port: 0, allowedDirs });
  const client = connect({ url: handle.url, timeoutMs: 600_000 });
  try {
    const t0 = performance.now();
    const made = await createDicomNode(client, {
      file,
      properties: {},
      provisionalName: 'bench',
      transfer: 'auto',
      signal: new AbortController().signal,
    });
    return { ms: performance.now() - t0, sent: made.sent };
  } finally {
    await client.close();
    await handle.stop();
  }
}

export default async function bench(): Promise<void> {
  const py = pythonWith('pydicom, numpy');
  if (py === undefined) {
    console.log('remote-load: python3 with pydicom and numpy is not installed; nothing measured');
    return;
  }
  const { raw } = await benchSeries(join(root, '.bench-tmp', 'dicom'), py);
  const file = join(raw, (await readdir(raw)).sort()[0]!);
  const elsewhere = await mkdtemp(join(tmpdir(), 'wbplay-bench-remote-'));
  try {
    const remote: number[] = [];
    const local: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await loadOnce(file, [elsewhere]);
      const l = await loadOnce(file, []);
      if (r.sent !== 'nrrd' || l.sent !== 'file-reference') throw new Error(`sent ${r.sent} and ${l.sent}`);
      remote.push(r.ms);
      local.push(l.ms);
    }
    console.log(`300-slice 512² CT, ${RUNS} alternating runs, medians`);
    console.log('| load | ms |');
    console.log('| --- | ---: |');
    console.log(`| sent as NRRD (workbench cannot read the files) | ${median(remote).toFixed(0)} |`);
    console.log(`| file reference (workbench reads the series) | ${median(local).toFixed(0)} |`);
    console.log(`| ratio | ${(median(remote) / median(local)).toFixed(2)} |`);
    // Where the remote load's time goes: the reading a workbench would do, then the encoding.
    let t0 = performance.now();
    const [read] = await readDicom(file);
    const readMs = performance.now() - t0;
    t0 = performance.now();
    const bytes = writeNrrd(read!.volume!, { gzipLevel: 1 });
    const encodeMs = performance.now() - t0;
    console.log(
      `| of which: the series read here | ${readMs.toFixed(0)} |\n| of which: NRRD, gzip level 1 (${(bytes.length / 1e6).toFixed(0)} MB) | ${encodeMs.toFixed(0)} |`,
    );
  } finally {
    await rm(elsewhere, { recursive: true, force: true });
  }
}
