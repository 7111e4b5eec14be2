// The measurements of the comparison benchmark, in a process of its own (started by
// compare.bench.ts): wbplay's compareImages from the compiled package, odiff and a naive pngjs +
// pixelmatch pipeline on the same generated files, interleaved. Prints one line per pair.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type * as CompareModule from '../src/compare/compare-images.js';

type Variant = 'identical' | 'changed-1%' | 'shifted-1px';
type OdiffCompare = (
  base: string,
  compare: string,
  diff: string,
  options?: Record<string, unknown>,
) => Promise<{ match: boolean; diffCount?: number }>;

const [odiffBin] = process.argv.slice(2);
const { compareImages } = (await import(
  new URL('../dist/compare/compare-images.js', import.meta.url).href
)) as typeof CompareModule;

/** A deterministic hash for the texture, so every run compares the same files. */
function hash(x: number, y: number): number {
  let h = (Math.imul(x, 374761393) + Math.imul(y, 668265263)) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/**
 * A rendered-looking slice: a dark gradient backdrop, a textured elliptic body (noise so it
 * compresses like real data), anti-aliased coloured disks as segmentations, a crosshair.
 * `changed-1%` adds a disk over about 1% of the pixels; `shifted-1px` moves everything right.
 */
function scene(n: number, variant: Variant | 'base'): Buffer {
  const png = new PNG({ width: n, height: n });
  const d = png.data;
  const disks: Array<{ x: number; y: number; r: number; c: [number, number, number] }> = [
    { x: n * 0.35, y: n * 0.4, r: n * 0.08, c: [230, 60, 60] },
    { x: n * 0.62, y: n * 0.55, r: n * 0.05, c: [60, 200, 90] },
  ];
  if (variant === 'changed-1%') disks.push({ x: n * 0.7, y: n * 0.3, r: n * 0.0564, c: [240, 220, 40] });
  const dx = variant === 'shifted-1px' ? 1 : 0;
  for (let y = 0; y < n; y++) {
    for (let px = 0; px < n; px++) {
      const x = px - dx;
      let r = 10 + (30 * y) / n;
      let g = r;
      let b = 30 + (60 * y) / n;
      const e = ((x - n / 2) / (n * 0.42)) ** 2 + ((y - n / 2) / (n * 0.36)) ** 2;
      if (e < 1.02) {
        const v = 90 + 50 * Math.sin(x / 17) * Math.cos(y / 23) + 40 * (1 - e) + 16 * (hash(x, y) - 0.5);
        const cover = Math.min(1, (1.02 - e) * 50);
        r += (v - r) * cover;
        g += (v - g) * cover;
        b += (v - b) * cover;
      }
      for (const k of disks) {
        const cover = Math.min(1, Math.max(0, k.r - Math.hypot(x - k.x, y - k.y) + 0.5)) * 0.8;
        r += (k.c[0] - r) * cover;
        g += (k.c[1] - g) * cover;
        b += (k.c[2] - b) * cover;
      }
      if (x === n >> 1 || y === n >> 1) [r, g, b] = [255, 255, 0];
      const i = (y * n + px) * 4;
      d[i] = r;
      d[i + 1] = g;
      d[i + 2] = b;
      d[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** Both files read in one call each, as checkGolden reads a golden (the capture is in memory there). */
async function ours(expected: string, actual: string, diff: string): Promise<number> {
  const [a, e] = [readFileSync(actual), readFileSync(expected)];
  const result = await compareImages(a, e);
  if (!result.pass && result.diff instanceof Uint8Array) await writeFile(diff, result.diff);
  return result.diffPixels;
}

/** What a first implementation would do: decode both with pngjs, pixelmatch with a diff, encode it with pngjs. */
async function naive(expected: string, actual: string, diff: string): Promise<number> {
  const [a, e] = [readFileSync(actual), readFileSync(expected)].map((b) => PNG.sync.read(b));
  const out = new PNG({ width: e!.width, height: e!.height });
  const count = pixelmatch(e!.data, a!.data, out.data, e!.width, e!.height, { threshold: 0.1 });
  if (count > 0) await writeFile(diff, PNG.sync.write(out));
  return count;
}

/** odiff-bin's own compare(), which runs the native binary directly (the `.bin/odiff` shim would add a node start-up to every call). */
function loadOdiff(bin: string | undefined): OdiffCompare | string {
  if (!bin) return 'odiff-bin could not be installed on this machine';
  try {
    const load = createRequire(import.meta.url);
    const mod = load(resolve(dirname(bin), '..', 'odiff-bin')) as { compare?: OdiffCompare };
    return mod.compare ?? 'odiff-bin has no compare()';
  } catch (error) {
    return (error as Error).message.split('\n')[0] ?? 'unknown error';
  }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

{
  const odiff = loadOdiff(odiffBin);
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-compare-'));
  try {
    if (typeof odiff === 'string') console.log(`odiff is unavailable (${odiff}); printing absolute times only`);
    console.log(
      'pair                 wbplay ms  odiff ms  naive ms  wbplay/odiff  naive/odiff  target       diff px (wbplay/odiff)',
    );
    for (const n of [512, 2048]) {
      const base = join(dir, `base-${n}.png`);
      await writeFile(base, scene(n, 'base'));
      for (const variant of ['identical', 'changed-1%', 'shifted-1px'] as const) {
        const other = join(dir, `${variant}-${n}.png`);
        // The identical pair is two files with the same bytes, as a passing golden check sees it.
        await writeFile(other, variant === 'identical' ? await readFile(base) : scene(n, variant));
        const diff = join(dir, `diff-${variant}-${n}.png`);
        const runs = n <= 512 ? 15 : 7;
        const t = { ours: [] as number[], odiff: [] as number[], naive: [] as number[] };
        let counts = { ours: 0, odiff: 0 };
        // Two warm-up rounds, then rounds that interleave the three so machine noise hits them alike.
        for (let round = -1; round <= runs; round++) {
          const o = await time(async () => {
            counts.ours = await ours(base, other, diff);
          });
          let od = Number.NaN;
          if (typeof odiff !== 'string') {
            od = await time(async () => {
              const r = await odiff(base, other, diff, { antialiasing: true, threshold: 0.1 });
              counts = { ...counts, odiff: r.match ? 0 : (r.diffCount ?? -1) };
            });
          }
          const nv = await time(() => naive(base, other, diff));
          if (round <= 0) continue;
          t.ours.push(o);
          t.odiff.push(od);
          t.naive.push(nv);
        }
        const [mo, mod, mn] = [median(t.ours), median(t.odiff), median(t.naive)];
        const target = variant === 'identical' ? 0.2 : 1.0;
        const ratio = mo / mod;
        const verdict = Number.isNaN(ratio) ? 'n/a' : `<=${target} ${ratio <= target ? 'MET' : 'MISSED'}`;
        console.log(
          `${`${variant} ${n}²`.padEnd(20)} ${mo.toFixed(1).padStart(9)} ${mod.toFixed(1).padStart(9)} ${mn.toFixed(1).padStart(9)} ${ratio.toFixed(2).padStart(13)} ${(mn / mod).toFixed(2).padStart(12)}  ${verdict.padEnd(12)} ${counts.ours}/${counts.odiff}`,
        );
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
