import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { writeHtmlReport } from '../../src/report/html.js';
import type { CaseResult, RunResultTree } from '../../src/result/result.js';
import { runOf } from '../../src/result/case-list.js';
import { summarize } from '../../src/result/result.js';
import { recordedResult, writeArtefactImages } from './replay.js';

// The HTML report in a real headless Chromium: it loads without a console error, shows the
// failing case first, its images load, the slider, blink and zoom controls work, and text
// from playbooks and servers is shown as text, never run.

const CHROMIUM = '/usr/bin/chromium';

// The page's element types, as far as these checks use them (the project compiles without the DOM library).
interface Details {
  open: boolean;
}
interface Img {
  complete: boolean;
  naturalWidth: number;
  addEventListener(type: string, f: () => void, o?: object): void;
}
interface Styled {
  style: { clipPath: string };
}
interface Doc {
  document: { querySelector(s: string): { textContent: string | null } | null };
}
const XSS_NAME = '<img src=x onerror=alert(1)>';
const XSS_ARG = '</script><script>window.__pwned = 1; alert(2)</script>';
const XSS_STUDY = '"><svg onload=alert(3)>';

let root: string;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const dialogs: string[] = [];

function withHostileCase(result: RunResultTree): RunResultTree {
  const template = result.cases.find((c) => c.id === 'study-01');
  assert.ok(template);
  const hostile: CaseResult = structuredClone(template);
  hostile.id = 'hostile';
  hostile.name = XSS_NAME;
  hostile.study = { id: 'hostile', label: XSS_STUDY };
  const first = hostile.steps[0];
  assert.ok(first);
  first.description = `<script>window.__pwned = 1</script>`;
  first.args = { file: XSS_ARG, as: '<b>ct</b>' };
  first.notices = ['</div><img src=x onerror=alert(4)>'];
  const cases = [...result.cases, hostile];
  return { ...result, cases, summary: summarize(cases) };
}

before(async () => {
  await access(CHROMIUM).catch(() => {
    throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (CI's .ci/run does)`);
  });
  root = await mkdtemp(join(tmpdir(), 'wbplay-html-'));
  const outputDir = join(root, 'out');
  const result = withHostileCase(recordedResult());
  await writeArtefactImages(result, outputDir);
  const file = await writeHtmlReport(runOf(result), outputDir);
  context = await chromium.launchPersistentContext(join(root, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
});

after(async () => {
  await context?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

test('the page loads with no console error and its script ran', async () => {
  assert.deepEqual(consoleErrors, []);
  assert.equal(await page.locator('#shown').textContent(), '6 of 6 cases shown');
});

test('the failing case comes first, open, then the erring one', async () => {
  const cases = page.locator('details.case');
  assert.equal(await cases.count(), 6);
  assert.equal(await cases.nth(0).getAttribute('data-status'), 'failed');
  assert.equal(await cases.nth(0).locator('.case-name').textContent(), 'regression · study-02');
  assert.equal(await cases.nth(0).evaluate((el) => (el as unknown as Details).open), true);
  assert.equal(await cases.nth(1).getAttribute('data-status'), 'error');
  assert.equal(
    await cases.nth(2).evaluate((el) => (el as unknown as Details).open),
    false,
    'passing cases start closed',
  );
  assert.match((await page.locator('header .verdict').textContent()) ?? '', /FAILED/);
});

test('expected, actual and diff images load', async () => {
  const box = page.locator('details.case').first().locator('.compare');
  for (const cls of ['img-expected', 'img-actual', 'img-diff']) {
    const img = box.locator(`img.${cls}`);
    await img.evaluate((el) =>
      (el as unknown as Img).complete ? null : new Promise((r) => el.addEventListener('load', r, { once: true })),
    );
    assert.equal(await img.evaluate((el) => (el as unknown as Img).naturalWidth), 64, cls);
  }
  assert.equal(await page.locator('figure.broken').count(), 0);
});

test('zoom scales images by whole factors', async () => {
  const box = page.locator('details.case').first().locator('.compare');
  await box.getByRole('button', { name: '2×' }).click();
  assert.equal(await box.locator('img.img-expected').evaluate((el) => el.getBoundingClientRect().width), 128);
  await box.getByRole('button', { name: '4×' }).click();
  assert.equal(await box.locator('img.img-diff').evaluate((el) => el.getBoundingClientRect().width), 256);
  assert.equal(
    await box
      .locator('img.img-diff')
      .evaluate(
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { imageRendering: string } }).getComputedStyle(el)
            .imageRendering,
      ),
    'pixelated',
  );
  await box.getByRole('button', { name: 'Fit' }).click();
  const fit = await box.locator('img.img-expected').evaluate((el) => el.getBoundingClientRect().width);
  assert.ok(fit > 128, `fit fills its column (${fit} px)`);
});

test('the slider shows expected left of the handle and actual right of it', async () => {
  const box = page.locator('details.case').first().locator('.compare');
  await box.getByRole('button', { name: 'Slider' }).click();
  assert.equal(await box.locator('[data-view="side"]').isHidden(), true);
  assert.equal(await box.locator('[data-view="slider"]').isVisible(), true);
  await box.locator('input[type="range"]').fill('20');
  assert.equal(
    await box.locator('.swipe .over').evaluate((el) => (el as unknown as Styled).style.clipPath),
    'inset(0px 0px 0px 20%)',
  );
  const swipe = await box.locator('.swipe').boundingBox();
  const handle = await box.locator('.swipe .handle').boundingBox();
  assert.ok(swipe && handle);
  assert.ok(Math.abs(handle.x + 1 - (swipe.x + swipe.width * 0.2)) <= 1, 'the handle sits at 20%');
  // At 50%, pixels left of the handle come from the expected image (its square is at 12..28)
  // and right of it from the actual one (its square is at 36..52).
  await box.locator('input[type="range"]').fill('50');
  const shot = PNG.sync.read(await box.locator('.swipe').screenshot());
  const scale = shot.width / 64;
  const bright = (x: number, y: number): boolean =>
    (shot.data[(Math.floor(y * scale) * shot.width + Math.floor(x * scale)) * 4] ?? 0) > 200;
  assert.equal(bright(20, 20), true, "expected's square, left of the handle");
  assert.equal(bright(44, 44), true, "actual's square, right of the handle");
  assert.equal(bright(44, 20), false);
  assert.equal(bright(20, 44), false);
});

test('blink alternates expected and actual, and a click pauses it', async () => {
  const box = page.locator('details.case').first().locator('.compare');
  await box.getByRole('button', { name: 'Blink' }).click();
  const label = box.locator('.blink-label');
  assert.equal(await label.textContent(), 'Expected');
  assert.equal(await box.locator('.blink img.b-actual').isVisible(), false);
  await page.waitForFunction(
    () => (globalThis as unknown as Doc).document.querySelector('.compare .blink-label')?.textContent === 'Actual',
  );
  assert.equal(await box.locator('.blink img.b-actual').isVisible(), true);
  assert.equal(await box.locator('.blink img.b-expected').isVisible(), false);
  await page.waitForFunction(
    () => (globalThis as unknown as Doc).document.querySelector('.compare .blink-label')?.textContent === 'Expected',
  );
  await box.locator('.blink').click();
  const paused = await label.textContent();
  // Paused: it stays put across several blink periods.
  await page.waitForTimeout(1300);
  assert.equal(await label.textContent(), paused);
  await box.getByRole('button', { name: 'Side by side' }).click();
  assert.equal(await box.locator('[data-view="side"]').isVisible(), true);
});

test('text from playbooks and servers is shown as text and no injected script runs', async () => {
  const hostile = page.locator('details.case[data-search*="hostile"]');
  assert.equal(await hostile.locator('.case-name').textContent(), XSS_NAME);
  assert.match((await hostile.locator('.study').textContent()) ?? '', /svg onload=alert\(3\)/);
  assert.equal(await page.locator('img[src="x"]').count(), 0);
  assert.equal(await page.locator('svg').count(), 0);
  await hostile.evaluate((el) => ((el as unknown as Details).open = true));
  assert.equal(await hostile.locator('.step .desc').first().textContent(), '<script>window.__pwned = 1</script>');
  await hostile.locator('.args-toggle').first().click();
  const args = (await hostile.locator('pre.args').first().textContent()) ?? '';
  assert.ok(args.includes(JSON.stringify(XSS_ARG)), args);
  assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(consoleErrors, []);
});

test('the status tiles filter the cases', async () => {
  await page.locator('.tile[data-filter="passed"]').click();
  assert.equal(await page.locator('#shown').textContent(), '3 of 6 cases shown');
  assert.equal(await page.locator('details.case[data-status="failed"]').isHidden(), true);
  await page.locator('.tile[data-filter="passed"]').click();
  assert.equal(await page.locator('#shown').textContent(), '6 of 6 cases shown');
  await page.locator('#search').fill('study-03');
  assert.equal(await page.locator('#shown').textContent(), '1 of 6 cases shown');
});
