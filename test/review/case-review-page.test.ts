// `wbplay review`'s page in real Chromium, driven by the keyboard over a cohort the reference
// workbench captured: verdicts, comments, tags and representative land in review.json (with the
// SHA-256 of each capture shown) and review.csv; a reload resumes at the next case without a
// verdict; a capture changed after its verdict shows the verdict as stale; the grid filters by
// verdict, tag, status and field and pages a large cohort; text that looks like markup stays
// text. Requests not from the page are refused. The tests run in order over one output folder:
// the stale test changes captures the first one reviewed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startCaseReviewServer, type CaseReviewServer } from '../../src/review/case-review-server.js';
import { readReview } from '../../src/result/review-file.js';
import { makeCohort, wbplay } from '../helpers/cohort.js';
import { writeReviewCohort } from '../helpers/review-cohort.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror="window.__pwned=1;alert(1)">';
let dir = '';
let out = '';
let browser: Browser;

const sha256 = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-case-review-'));
  await makeCohort(dir, 4);
  const run = await wbplay(['run', 'cohort.yaml', '--out', 'out'], dir);
  assert.equal(run.code, 0, run.stderr);
  out = join(dir, 'out');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(server: CaseReviewServer, errors: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(server.url);
  await ready(page);
  return page;
}

/** The case shown and every capture of it drawn. */
async function ready(page: Page): Promise<void> {
  await page.locator('body[data-ready="true"]').waitFor({ timeout: 20_000 });
}

async function saved(page: Page): Promise<void> {
  await page.locator('#saved', { hasText: /^Saved / }).waitFor({ timeout: 10_000 });
}

test('verdicts, comments, tags and representative given by keyboard land in review.json and review.csv; a reload resumes at the next case without a verdict', async (t) => {
  const server = await startCaseReviewServer({ outputDir: out, reviewer: 'Ana' });
  t.after(() => server.close());
  const errors: string[] = [];
  const page = await open(server, errors);
  assert.match((await page.locator('#case-name').textContent())!, /study-001$/);
  assert.equal(await page.locator('#captures img').count(), 3, 'every capture of the case is shown');
  assert.match((await page.locator('#fields').textContent())!, /tumour_x55\.6/, 'the manifest columns are shown');
  // Every action is a button with an accessible name and its key shown on it.
  for (const [name, key] of [
    ['Pass', 'P'],
    ['Fail', 'F'],
    ['Unsure', 'U'],
    ['Representative', 'R'],
    ['Previous', '←'],
    ['Next', '→'],
  ]) {
    const button = page.getByRole('button', { name: `${name} ${key}`, exact: true });
    assert.equal(await button.count(), 1, name);
    assert.equal(await button.locator('kbd').textContent(), key);
  }
  assert.equal(await page.getByLabel('Comment').count(), 1);

  await page.keyboard.press('p');
  await saved(page);
  assert.equal(await page.getByRole('button', { name: 'Pass P' }).getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('ArrowRight');
  await ready(page);
  assert.match((await page.locator('#case-name').textContent())!, /study-002$/);
  await page.keyboard.press('f');
  await saved(page);
  await page.keyboard.press('m');
  await page.keyboard.type('=HYPERLINK("http://x") tumour cut off');
  await page.keyboard.press('Escape');
  await page.locator('#saved', { hasText: /^Saved / }).waitFor();
  await page.keyboard.press('t');
  await page.keyboard.type('motion');
  await page.keyboard.press('Enter');
  await page.locator('#tags li', { hasText: 'motion' }).waitFor();
  await page.keyboard.press('Escape');
  await page.keyboard.press('r');
  await page.locator('#representative[aria-pressed="true"]').waitFor();
  await saved(page);

  const review = await readReview(out);
  const one = review.cases['Cohort test · study-001']!;
  const two = review.cases['Cohort test · study-002']!;
  assert.equal(one.verdict, 'pass');
  assert.equal(one.reviewer, 'Ana');
  assert.deepEqual(one.captures, {
    'study-001/axial.png': await sha256(join(out, 'study-001/axial.png')),
    'study-001/sagittal.png': await sha256(join(out, 'study-001/sagittal.png')),
    'study-001/3d.png': await sha256(join(out, 'study-001/3d.png')),
  });
  assert.equal(two.verdict, 'fail');
  assert.equal(two.comment, '=HYPERLINK("http://x") tumour cut off');
  assert.deepEqual(two.tags, ['motion']);
  assert.equal(two.representative, true);
  assert.ok(!Number.isNaN(Date.parse(two.time)));
  assert.deepEqual(
    (await readdir(out)).filter((f) => f.startsWith('.')),
    [],
    'no temporary file is left',
  );

  const csv = await readFile(join(out, 'review.csv'), 'utf8');
  assert.ok(csv.startsWith('\uFEFF'), 'a byte order mark, so Excel reads UTF-8');
  const rows = parse(csv.slice(1), { columns: true }) as Array<Record<string, string>>;
  assert.deepEqual(Object.keys(rows[0]!).slice(0, 9), [
    'case',
    'verdict',
    'comment',
    'tags',
    'representative',
    'reviewer',
    'time',
    'name',
    'path',
  ]);
  assert.equal(rows.length, 4, 'a row per case of the run');
  assert.equal(rows[1]!.verdict, 'fail');
  assert.equal(rows[1]!.comment, `'=HYPERLINK("http://x") tumour cut off`, 'a formula is written as text');
  assert.equal(rows[1]!.tags, 'motion');
  assert.equal(rows[1]!.representative, 'yes');
  assert.equal(rows[1]!.tumour_x, '58.6');
  assert.equal(rows[2]!.verdict, '');

  // A reload opens the first case without a verdict.
  await page.reload();
  await ready(page);
  assert.match((await page.locator('#case-name').textContent())!, /study-003$/);
  assert.match((await page.locator('#progress').textContent())!, /^2 of 4 cases have a verdict/);
  // The grid, filtered by verdict.
  await page.keyboard.press('g');
  await page.locator('#grid button').first().waitFor();
  assert.equal(await page.locator('#grid button').count(), 4);
  await page.locator('#f-verdict').selectOption('fail');
  assert.equal(await page.locator('#grid button').count(), 1);
  assert.equal(await page.locator('#grid button').getAttribute('aria-label'), 'Cohort test · study-002');
  await page.locator('#f-verdict').selectOption('none');
  assert.equal(await page.locator('#grid button').count(), 2, 'the cases without a verdict');
  await page.locator('#f-verdict').selectOption('');
  await page.locator('#f-status').selectOption('failed');
  assert.equal(await page.locator('#grid button').count(), 0, 'no case failed in the run');
  await page.locator('#f-status').selectOption('');
  await page.locator('#f-field').selectOption('tumour_z');
  await page.locator('#f-value').fill('22.2');
  assert.equal(await page.locator('#grid button').getAttribute('aria-label'), 'Cohort test · study-002');
  assert.equal(await page.locator('#grid button').count(), 1);
  await page.locator('#f-field').selectOption('');
  await page.locator('#f-value').fill('');
  await page.locator('#f-tag').selectOption('motion');
  assert.equal(await page.locator('#grid button').count(), 1);
  await page.locator('#grid button').click();
  await ready(page);
  assert.match((await page.locator('#case-name').textContent())!, /study-002$/);
  // The verdict's key again takes the verdict back, and once more gives it.
  await page.keyboard.press('f');
  await saved(page);
  assert.equal(await page.getByRole('button', { name: 'Fail F' }).getAttribute('aria-pressed'), 'false');
  assert.equal((await readReview(out)).cases['Cohort test · study-002']!.verdict, undefined);
  assert.match((await page.locator('#progress').textContent())!, /^1 of 4 cases have a verdict/);
  await page.keyboard.press('f');
  await saved(page);
  assert.equal((await readReview(out)).cases['Cohort test · study-002']!.verdict, 'fail');
  assert.deepEqual(errors, []);
});

test('a capture changed since its verdict shows the verdict as stale, until it is given again', async (t) => {
  const server = await startCaseReviewServer({ outputDir: out, reviewer: 'Ana' });
  t.after(() => server.close());
  const errors: string[] = [];
  const page = await open(server, errors);
  await page.goto(`${server.url}`);
  await ready(page);
  // Case 1 has a verdict; its axial capture is now another image (a rerun that came out otherwise).
  await copyFile(join(out, 'study-001/sagittal.png'), join(out, 'study-001/axial.png'));
  await page.keyboard.press('ArrowLeft');
  await ready(page);
  while (!/study-001$/.test((await page.locator('#case-name').textContent())!)) {
    await page.keyboard.press('ArrowLeft');
    await ready(page);
  }
  await page.locator('#stale').waitFor({ state: 'visible' });
  assert.match((await page.locator('#stale').textContent())!, /^Stale: study-001\/axial\.png changed/);
  assert.equal(await page.locator('#case-verdict').textContent(), 'pass (stale)');
  await page.keyboard.press('p');
  await saved(page);
  assert.equal(await page.locator('#stale').isVisible(), false);
  assert.equal(await page.locator('#case-verdict').textContent(), 'pass');
  const review = await readReview(out);
  assert.equal(
    review.cases['Cohort test · study-001']!.captures['study-001/axial.png'],
    await sha256(join(out, 'study-001/axial.png')),
  );
  // The page has fetched the next case ahead; a capture of it that changes meanwhile still shows.
  await page.waitForTimeout(500);
  await copyFile(join(out, 'study-002/axial.png'), join(out, 'study-002/3d.png'));
  await page.keyboard.press('ArrowRight');
  await page.locator('#stale', { hasText: 'study-002/3d.png' }).waitFor({ state: 'visible' });
  assert.equal(await page.locator('#case-verdict').textContent(), 'fail (stale)');
  // The grid marks it too, and its stale filter finds it alone.
  await page.keyboard.press('g');
  await page.locator('#grid[data-checked="true"]').waitFor();
  assert.equal(await page.locator('#grid button .badge.stale').count(), 1);
  assert.equal(
    await page.locator('#grid button', { has: page.locator('.badge.stale') }).getAttribute('aria-label'),
    'Cohort test · study-002',
  );
  assert.equal(await page.locator('#grid button .badge.stale').textContent(), 'fail (stale)');
  await page.locator('#f-verdict').selectOption('stale');
  await page.locator('#grid-count', { hasText: '1 of 4 cases' }).waitFor();
  assert.equal(await page.locator('#grid button').getAttribute('aria-label'), 'Cohort test · study-002');
  assert.deepEqual(errors, []);
});

test('the guards: a foreign Host, a foreign Origin and a missing token are refused; no path is served from outside', async (t) => {
  const server = await startCaseReviewServer({ outputDir: out, reviewer: 'Ana' });
  t.after(() => server.close());
  const html = await (await fetch(server.url)).text();
  const token = /name="wbplay-review" content="([0-9a-f]+)"/.exec(html)![1]!;
  const origin = server.url.replace(/\/$/, '');
  const post = (headers: Record<string, string>): Promise<Response> =>
    fetch(`${origin}/api/review`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ case: 2, verdict: 'fail', seen: {} }),
    });
  assert.equal((await fetch(`${origin}/api/cases`)).status, 403, 'no token');
  assert.equal((await fetch(`${origin}/api/capture?case=0&n=0`)).status, 403, 'a capture without the token');
  assert.equal((await fetch(`${origin}/api/cases`, { headers: { 'x-wbplay-review': token } })).status, 200);
  assert.equal((await post({ origin: 'http://evil.example', 'x-wbplay-review': token })).status, 403, 'another origin');
  assert.equal((await post({ origin })).status, 403, 'a POST without the token');
  assert.equal((await post({ origin, 'x-wbplay-review': 'guess' })).status, 403, 'a wrong token');
  const forged = await fetch(`${origin}/api/review`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, 'x-wbplay-review': token },
    body: JSON.stringify({ case: 2, verdict: 'pass', seen: { '../../etc/passwd': 'a'.repeat(64) } }),
  });
  assert.equal(forged.status, 400, 'a capture the case does not have');
  assert.equal((await readReview(out)).cases['Cohort test · study-003'], undefined, 'nothing was written');
  const status = await new Promise<number>((resolve, reject) => {
    request(server.url, { headers: { host: 'rebound.example:80' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
  assert.equal(status, 403, 'a foreign Host');
});

test('the grid pages a large cohort, 60 cases to a page, by key and by button', async (t) => {
  const big = await mkdtemp(join(tmpdir(), 'wbplay-case-review-grid-'));
  t.after(() => rm(big, { recursive: true, force: true }));
  const server = await startCaseReviewServer({ outputDir: await writeReviewCohort(big, 130, 4), reviewer: 'Ana' });
  t.after(() => server.close());
  const errors: string[] = [];
  const page = await open(server, errors);
  await page.keyboard.press('g');
  await page.locator('#grid button').first().waitFor();
  assert.equal(await page.locator('#grid button').count(), 60);
  assert.equal(await page.locator('#page-of').textContent(), 'page 1 of 3');
  assert.equal(await page.locator('#grid-count').textContent(), '130 of 130 cases');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('#page-of').textContent(), 'page 2 of 3');
  assert.equal(await page.locator('#grid button').first().getAttribute('aria-label'), 'case-00061');
  await page.getByRole('button', { name: 'Next page' }).click();
  assert.equal(await page.locator('#grid button').count(), 10);
  assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);
  await page.locator('#f-status').selectOption('failed');
  assert.equal(await page.locator('#page-of').textContent(), 'page 1 of 1');
  assert.equal(await page.locator('#grid button').count(), 4, 'the failed cases among them');
  await page.locator('#grid img').first().waitFor();
  // What a review file holds is shown as text: a tag and a comment that look like markup.
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.locator('#grid button').first().click();
  await page.locator('body[data-ready="true"]').waitFor();
  await page.keyboard.press('t');
  await page.keyboard.type(HOSTILE);
  await page.keyboard.press('Enter');
  await page.locator('#tags li').waitFor();
  await page.keyboard.press('Escape');
  await page.keyboard.press('m');
  await page.keyboard.type(HOSTILE);
  await page.keyboard.press('Escape');
  await page.locator('#saved', { hasText: /^Saved / }).waitFor();
  await page.reload();
  await page.locator('body[data-ready="true"]').waitFor();
  await page.keyboard.press('g');
  await page.locator('#f-tag').selectOption(HOSTILE);
  await page.locator('#grid button').click();
  await page.locator('body[data-ready="true"]').waitFor();
  assert.equal(await page.locator('#tags li').first().textContent(), `${HOSTILE}×`);
  assert.equal(await page.locator('#comment').inputValue(), HOSTILE);
  assert.equal(await page.locator('#tags img, #panel img, aside img').count(), 0, 'no element was made of it');
  assert.equal(await page.evaluate('window.__pwned'), undefined);
  assert.deepEqual(dialogs, []);
  await page.keyboard.press('g');
  await page.waitForFunction(() =>
    Array.from(
      (
        globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ naturalWidth: number }> } }
      ).document.querySelectorAll('#grid img'),
    ).every((i) => i.naturalWidth > 0),
  );
  assert.deepEqual(errors, []);
});
