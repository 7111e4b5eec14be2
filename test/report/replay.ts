import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PNG } from 'pngjs';
import type { Reporter } from '../../src/result/reporter.js';
import { runOf } from '../../src/result/case-list.js';
import { type RunResult, type RunResultTree } from '../../src/result/result.js';

/** The recorded events of a small run (see test/golden/reports/events.json). */
export interface RecordedEvent {
  event: Exclude<keyof Reporter, 'name'>;
  args: unknown[];
}

export const GOLDEN_DIR = join(import.meta.dirname, '..', 'golden', 'reports');

export function loadEvents(): RecordedEvent[] {
  return JSON.parse(readFileSync(join(GOLDEN_DIR, 'events.json'), 'utf8')) as RecordedEvent[];
}

/** The run result the recording ends with. */
export function recordedResult(events: readonly RecordedEvent[] = loadEvents()): RunResultTree {
  const end = events.find((e) => e.event === 'onRunEnd');
  if (!end) throw new Error('the recording has no onRunEnd');
  return structuredClone(end.args[0]) as RunResultTree;
}

/** The recorded result as reporters get it: its cases read one at a time. */
export function recordedRun(events: readonly RecordedEvent[] = loadEvents()): RunResult {
  return runOf(recordedResult(events));
}

/** Plays the recording into a reporter, awaiting the events that may be asynchronous. */
export async function replay(reporter: Reporter, events: readonly RecordedEvent[], outputDir: string): Promise<void> {
  for (const e of events) {
    const args = structuredClone(e.args);
    if (e.event === 'onRunStart') (args[0] as { outputDir: string }).outputDir = outputDir;
    if (e.event === 'onRunEnd') args[0] = runOf(args[0] as RunResultTree);
    const fn = reporter[e.event] as ((...a: unknown[]) => unknown) | undefined;
    await fn?.apply(reporter, args);
  }
}

/** A small RGBA image of one colour with a square of another, so expected and actual differ visibly. */
export function squarePng(
  size: number,
  background: [number, number, number],
  square: [number, number, number],
  at: number,
): Buffer {
  const png = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const inside = x >= at && x < at + size / 4 && y >= at && y < at + size / 4;
      const [r, g, b] = inside ? square : background;
      const i = (y * size + x) * 4;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** Writes a PNG for every artefact of the result, relative to the output folder. */
export async function writeArtefactImages(result: RunResultTree, outputDir: string): Promise<void> {
  for (const c of result.cases) {
    for (const s of c.steps) {
      for (const a of s.artefacts) {
        const at = a.kind === 'actual' ? 36 : 12;
        const colour: [number, number, number] = a.kind === 'diff' ? [255, 0, 80] : [240, 200, 60];
        const file = join(outputDir, a.path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, squarePng(64, a.kind === 'diff' ? [235, 235, 235] : [30, 40, 60], colour, at));
      }
    }
  }
}
