// The contact sheet of a cohort: the 40 axial screenshots of the demo studies that
// playbooks/cohort.yaml captures (512x512, made once by the reference workbench, untimed), tiled
// into one labelled PNG as the end of a `wbplay run` makes it. Every sheet is made in a fresh
// process on the compiled package (bench/contact-sheet-run.ts), as a run makes it once, cold.
// Prints ms per tile against its target and the peak memory the sheet adds against the sheet's
// own pixels; a naive pngjs pipeline (decode every tile, hold the sheet, encode it) runs
// alternately for scale.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { embeddedWorkbenches } from '../src/sim/embedded.js';
import { writeDemoData } from '../src/sim/demo-data.js';
import { loadPlaybook } from '../src/compile/index.js';
import { runPlans } from '../src/run/runner.js';
import { buildPackage } from './built.js';
import type { SheetRun } from './contact-sheet-run.js';

const run = promisify(execFile);

const STUDIES = 40;
const RUNS = 5;
/** ms per tile. */
const TARGET = 10;

async function sheetRun(mode: 'ours' | 'naive', tilesFile: string, out: string): Promise<SheetRun> {
  const script = fileURLToPath(new URL('contact-sheet-run.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, mode, tilesFile, out], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as SheetRun;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** Width and height from a PNG's IHDR. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

export default async function bench(): Promise<void> {
  buildPackage();
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-sheet-'));
  try {
    await writeDemoData(dir, { cohort: STUDIES });
    const out = join(dir, 'out');
    // The example playbook itself: its axial screenshots are the tiles (its own sheet is not timed).
    const example = fileURLToPath(new URL('../playbooks/cohort.yaml', import.meta.url));
    const result = await runPlans({
      plans: [loadPlaybook(example, { vars: { data: dir, out } })],
      workbenches: embeddedWorkbenches(1),
      reporter: {},
      outputDir: out,
    });
    if (result.summary.passed !== STUDIES)
      throw new Error(`only ${result.summary.passed} of ${STUDIES} studies passed`);
    const tiles = Array.from({ length: STUDIES }, (_, i) => {
      const name = `study-${String(i + 1).padStart(3, '0')}`;
      return { case: name, file: join(out, name, 'axial.png'), label: name };
    });
    const tilesFile = join(dir, 'tiles.json');
    await writeFile(tilesFile, JSON.stringify(tiles));
    const tile = pngSize(await readFile(tiles[0]!.file));

    const ours: SheetRun[] = [];
    const naive: SheetRun[] = [];
    // One warm-up of each (the file system's caches), then alternating runs.
    for (let round = 0; round <= RUNS; round++) {
      const o = await sheetRun('ours', tilesFile, join(dir, 'sheet.png'));
      const n = await sheetRun('naive', tilesFile, join(dir, 'naive.png'));
      if (round === 0) continue;
      ours.push(o);
      naive.push(n);
    }
    const sheet = pngSize(await readFile(join(dir, 'sheet.png')));
    const sheetRgba = sheet.width * sheet.height * 4;
    const perTile = ours.map((r) => r.ms / STUDIES);
    const mb = (n: number): string => `${(n / 2 ** 20).toFixed(n < 2 ** 24 ? 2 : 0)} MB`;
    console.log(
      `${STUDIES} tiles of ${tile.width}x${tile.height} into a ${sheet.width}x${sheet.height} sheet (${mb(sheetRgba)} as RGBA); ${RUNS} runs, a fresh process each`,
    );
    console.log(
      `wbplay: ${median(perTile).toFixed(1)} ms per tile (runs ${perTile.map((t) => t.toFixed(1)).join(', ')}), CPU ${(median(ours.map((r) => r.cpuMs)) / STUDIES).toFixed(1)} ms per tile, sheet ${mb(ours[0]!.bytes)}`,
    );
    console.log(
      `naive pngjs: ${(median(naive.map((r) => r.ms)) / STUDIES).toFixed(1)} ms per tile, sheet ${mb(naive[0]!.bytes)}; wbplay/naive ${(median(ours.map((r) => r.ms)) / median(naive.map((r) => r.ms))).toFixed(2)}x`,
    );
    const worst = Math.max(...perTile);
    console.log(
      `ms per tile: median ${median(perTile).toFixed(1)} of ${RUNS} runs (slowest ${worst.toFixed(1)}), target <= ${TARGET}: ${median(perTile) <= TARGET ? 'MET' : 'MISSED'}`,
    );
    const growth = Math.max(...ours.map((r) => r.rssGrowth));
    console.log(
      `peak memory added by the sheet: ${mb(growth)} (most of any run), ${(growth / sheetRgba).toFixed(2)}x the sheet's RGBA pixels, target <= 1: ${growth <= sheetRgba ? 'MET' : 'MISSED'}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
