// One contact sheet in a process of its own, as the end of a `wbplay run` makes it: the compiled
// package, the tiles read from their files, the sheet written with its provenance. `naive`
// instead composes the same sheet the way a first implementation would (pngjs decodes every
// tile, the whole sheet is held as RGBA and pngjs encodes it). Prints the time, CPU and peak
// memory as one JSON line. Started by contact-sheet.bench.ts, once per run.
import { readFile, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { PNG } from 'pngjs';
import type * as SheetImage from '../src/steps/post-run/contact-sheet-image.js';

const [mode, tilesFile, out] = process.argv.slice(2);
const tiles = JSON.parse(await readFile(tilesFile!, 'utf8')) as { case: string; file: string; label: string }[];

export interface SheetRun {
  ms: number;
  cpuMs: number;
  /** Peak resident memory of the process over its memory before the sheet was started. */
  rssGrowth: number;
  bytes: number;
}

async function naive(): Promise<void> {
  const images = await Promise.all(tiles.map(async (t) => PNG.sync.read(await readFile(t.file))));
  const tw = images[0]!.width;
  const th = Math.max(...images.map((i) => i.height));
  const columns = Math.ceil(Math.sqrt(images.length));
  const rows = Math.ceil(images.length / columns);
  const sheet = new PNG({ width: columns * tw + (columns + 1) * 8, height: rows * (th + 22) + (rows + 1) * 8 });
  sheet.data.fill(26);
  images.forEach((img, i) => {
    const x = 8 + (i % columns) * (tw + 8);
    const y = 8 + Math.floor(i / columns) * (th + 30);
    PNG.bitblt(img, sheet, 0, 0, img.width, img.height, x, y);
  });
  await writeFile(out!, PNG.sync.write(sheet));
}

// Loaded before the clock starts: here through the TypeScript loader, which a run does not have.
const { writeContactSheet } = (await import(
  new URL('../dist/steps/post-run/contact-sheet-image.js', import.meta.url).href
)) as typeof SheetImage;

async function ours(): Promise<void> {
  await writeContactSheet({ tiles }, new Map(), out!, {
    playbook: 'cohort.yaml',
    playbookSha256: '0'.repeat(64),
    step: 'contact sheet',
    version: '0.0.0',
  });
}

const rssBefore = process.memoryUsage().rss;
const cpu = process.cpuUsage();
const t0 = performance.now();
await (mode === 'naive' ? naive() : ours());
const ms = performance.now() - t0;
const used = process.cpuUsage(cpu);
const run: SheetRun = {
  ms,
  cpuMs: (used.user + used.system) / 1000,
  // maxRSS is in kilobytes.
  rssGrowth: process.resourceUsage().maxRSS * 1024 - rssBefore,
  bytes: (await readFile(out!)).length,
};
process.stdout.write(`${JSON.stringify(run)}\n`);
