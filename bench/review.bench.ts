// `wbplay review` over 3,000 cases (WBPLAY_BENCH_REVIEW_CASES: another count): the page in
// headless Chromium (/usr/bin/chromium) on the review server in this process. Times the grid's
// opening (from the key that asks for it until its first page of thumbnails is drawn) and a
// move to the next case (from the key until the case's captures are drawn), as a test sees them
// (a frame of polling included), medians of repeated runs, against the targets. A move
// is timed after a short look at the case (the page fetches the next case meanwhile) and also
// key after key. The cases are copies of demo studies the reference workbench captured
// (test/helpers/review-cohort.ts), made untimed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Page } from 'playwright-core';
import { startCaseReviewServer } from '../src/review/case-review-server.js';
import { writeReviewCohort } from '../test/helpers/review-cohort.js';

const CASES = Number(process.env.WBPLAY_BENCH_REVIEW_CASES ?? 3000);
const GRID_TARGET_MS = 1000;
const NEXT_TARGET_MS = 100;
const GRID_RUNS = 9;
const MOVES = 60;
/** Far shorter than any look a reviewer gives a case. */
const LOOK_MS = 300;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** Presses a key in the page and waits there for `done` to hold: the time between, in the page's clock. */
async function timed(page: Page, key: string, done: () => boolean): Promise<number> {
  const start = Date.now();
  await page.keyboard.press(key);
  await page.waitForFunction(done, undefined, { polling: 'raf', timeout: 30_000 });
  return Date.now() - start;
}

// The page's elements as far as these checks use them (the project compiles without the DOM library).
interface Doc {
  document: {
    body: { dataset: Record<string, string> };
    getElementById(id: string): { hidden: boolean };
    querySelectorAll(s: string): ArrayLike<{ complete: boolean; naturalWidth: number }>;
  };
}
const GRID_DRAWN = (): boolean => {
  const doc = (globalThis as unknown as Doc).document;
  const images = Array.from(doc.querySelectorAll('#grid img'));
  return (
    !doc.getElementById('grid-view').hidden &&
    images.length > 0 &&
    images.every((i) => i.complete && i.naturalWidth > 0)
  );
};
const CASE_DRAWN = (): boolean => {
  const doc = (globalThis as unknown as Doc).document;
  return doc.body.dataset.ready === 'true' && !doc.getElementById('case-view').hidden;
};

export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-review-'));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const made = Date.now();
    const out = await writeReviewCohort(dir, CASES);
    console.log(`${CASES} cases of 3 captures each made in ${((Date.now() - made) / 1000).toFixed(1)} s (untimed)`);
    const started = Date.now();
    const server = await startCaseReviewServer({ outputDir: out, reviewer: 'bench' });
    console.log(`review server read the run in ${Date.now() - started} ms`);
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const loadStart = Date.now();
      await page.goto(server.url);
      await page.waitForFunction(CASE_DRAWN, undefined, { polling: 'raf', timeout: 60_000 });
      console.log(`page loaded with its index and first case in ${Date.now() - loadStart} ms`);

      const grid: number[] = [];
      for (let i = 0; i < GRID_RUNS; i++) {
        grid.push(await timed(page, 'g', GRID_DRAWN));
        await timed(page, 'c', CASE_DRAWN);
      }
      // A reviewer looks at a case before moving on, and the page fetches the next case meanwhile;
      // moves with no look at all are timed too, where nothing could be fetched ahead.
      const next: number[] = [];
      const rushed: number[] = [];
      for (let i = 0; i < MOVES; i++) {
        await page.waitForFunction(CASE_DRAWN, undefined, { polling: 'raf' });
        await sleep(LOOK_MS);
        // The key's handler marks the page not ready before it returns, so this waits for the next case.
        next.push(await timed(page, 'ArrowRight', CASE_DRAWN));
      }
      for (let i = 0; i < MOVES; i++) rushed.push(await timed(page, 'ArrowRight', CASE_DRAWN));
      const g = median(grid);
      const n = median(next);
      console.log(
        `grid of ${CASES} cases opened in ${g.toFixed(0)} ms (median of ${GRID_RUNS}; slowest ${Math.max(...grid).toFixed(0)}), target <= ${GRID_TARGET_MS}: ${g <= GRID_TARGET_MS ? 'MET' : 'MISSED'}`,
      );
      console.log(
        `next case in ${n.toFixed(0)} ms after a look of ${LOOK_MS} ms (median of ${MOVES}; slowest ${Math.max(...next).toFixed(0)}), target <= ${NEXT_TARGET_MS}: ${n <= NEXT_TARGET_MS ? 'MET' : 'MISSED'}`,
      );
      console.log(
        `next case with no look, key after key: ${median(rushed).toFixed(0)} ms (median of ${MOVES}; slowest ${Math.max(...rushed).toFixed(0)})`,
      );
    } finally {
      await server.close();
    }
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
}
