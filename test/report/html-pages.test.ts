// A report of many cases opens with its first page of cases (failures first); the rest come a
// page at a time, or all at once when a filter or a search needs them, and work as the first.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { CASES_PER_PAGE, writeHtmlReport } from '../../src/report/html.js';
import type { CaseResult, RunResultTree } from '../../src/result/result.js';
import { runOf } from '../../src/result/case-list.js';
import { summarize } from '../../src/result/result.js';
import { recordedResult, writeArtefactImages } from './replay.js';

const CASES = CASES_PER_PAGE * 2 + 50;

/** The recorded run's cases repeated (ids and names numbered), its failing case among the last ones. */
function manyCases(): RunResultTree {
  const base = recordedResult();
  const passed = base.cases.find((c) => c.status === 'passed')!;
  const failed = base.cases.find((c) => c.status === 'failed')!;
  const cases: CaseResult[] = Array.from({ length: CASES }, (_, i) => {
    const c = structuredClone(i === CASES - 3 ? failed : passed);
    c.id = `case-${String(i).padStart(4, '0')}`;
    c.name = `cohort · case-${String(i).padStart(4, '0')}`;
    return c;
  });
  return { ...base, cases, summary: summarize(cases) };
}

/**
 * The report of manyCases() with its images, open in headless Chromium; `before` runs in the
 * page ahead of its own script. Page errors are collected.
 */
async function openReport(t: TestContext, before?: string): Promise<{ page: Page; errors: string[] }> {
  const root = await mkdtemp(join(tmpdir(), 'wbplay-pages-html-'));
  const result = manyCases();
  const out = join(root, 'out');
  await writeArtefactImages(result, out);
  const file = await writeHtmlReport(runOf(result), out);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  t.after(async () => {
    await browser.close();
    await rm(root, { recursive: true, force: true });
  });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (before !== undefined) await page.addInitScript(before);
  await page.goto(pathToFileURL(file).href);
  return { page, errors };
}

test('a report of many cases opens with one page, failures first; the rest come on demand and for a search', async (t) => {
  const { page, errors } = await openReport(t);
  const count = (): Promise<number> => page.locator('details.case').count();
  assert.equal(await count(), CASES_PER_PAGE);
  assert.match(
    (await page.locator('details.case').first().getAttribute('data-search'))!,
    new RegExp(`case-${String(CASES - 3).padStart(4, '0')}`),
    'the failing case comes first',
  );
  assert.equal(await page.locator('#shown').textContent(), `${CASES_PER_PAGE} of ${CASES} cases shown`);
  const shown = (text: string): Promise<void> =>
    page
      .locator('#shown')
      .filter({ hasText: new RegExp(`^${text}$`) })
      .waitFor();
  // Later pages are packed: no markup of their cases is in the page.
  assert.equal((await page.content()).includes(`id="case-${CASES - 1}"`), false);
  await page.locator('#more').click();
  // Pages unpack asynchronously: wait until the page's last case is there.
  await page
    .locator('details.case')
    .nth(CASES_PER_PAGE * 2 - 1)
    .waitFor({ state: 'attached' });
  assert.equal(await count(), CASES_PER_PAGE * 2);
  assert.equal(await page.locator('#more').textContent(), `Show ${CASES - CASES_PER_PAGE * 2} more cases`);
  // A search finds a case of a page not shown yet, and the list holds just the match.
  await page.locator('#search').fill(`case-${String(CASES - 1).padStart(4, '0')}`);
  await shown(`1 of ${CASES} cases shown`);
  assert.equal(await count(), 1);
  assert.equal(await page.locator('details.case').getAttribute('id'), `case-${CASES - 1}`);
  assert.equal(await page.locator('#more').isHidden(), true);
  // A case of a later page works as one of the first: its arguments open.
  const late = page.locator('details.case');
  await late.locator('summary').click();
  await late.locator('.args-toggle').first().click();
  assert.match((await late.locator('pre.args').first().textContent())!, /as planned:/);
  // A status filter shows its matches a page at a time, in the report's order.
  await page.locator('#search').fill('');
  await page.locator('.tile[data-filter="passed"]').click();
  await shown(`${CASES_PER_PAGE} of ${CASES} cases shown`);
  assert.equal(await page.locator('details.case.failed').count(), 0);
  assert.equal(await page.locator('#more').textContent(), `Show ${CASES_PER_PAGE} more cases`);
  await page.locator('#more').click();
  await shown(`${CASES_PER_PAGE * 2} of ${CASES} cases shown`);
  await page.locator('#more').click();
  await shown(`${CASES - 1} of ${CASES} cases shown`);
  assert.equal(await page.locator('#more').isHidden(), true);
  const ids = await page.locator('details.case').evaluateAll((cases) => cases.map((c) => Number(c.id.slice(5))));
  assert.deepEqual(
    ids,
    Array.from({ length: CASES - 1 }, (_, i) => i + 1),
  );
  // The late case opened above kept its state while it was out of the list.
  assert.equal(await page.locator(`#case-${CASES - 1}`).getAttribute('open'), '');
  await page.locator('.tile[data-filter="failed"]').click();
  await shown(`1 of ${CASES} cases shown`);
  assert.equal(await page.locator('details.case').getAttribute('id'), 'case-0');
  await page.locator('.tile[data-filter="failed"]').click();
  await shown(`${CASES_PER_PAGE} of ${CASES} cases shown`);
  assert.equal(await page.locator(`#case-${CASES - 1}`).count(), 0, 'beyond the first page of all cases');
  assert.deepEqual(errors, []);
});

test('a browser that cannot unpack the later pages says so and keeps the first', async (t) => {
  const { page, errors } = await openReport(t, 'delete globalThis.DecompressionStream');
  await page.locator('#more').click();
  const more = page.locator('#more');
  await more.filter({ hasText: 'cannot unpack' }).waitFor();
  assert.equal(await more.textContent(), `This browser cannot unpack the other ${CASES - CASES_PER_PAGE} cases`);
  assert.equal(await more.isDisabled(), true);
  // A search still filters the cases the page has.
  await page.locator('#search').fill('case-0001');
  await page
    .locator('#shown')
    .filter({ hasText: new RegExp(`^1 of ${CASES} cases shown$`) })
    .waitFor();
  assert.equal(await page.locator('details.case').count(), 1);
  assert.deepEqual(errors, []);
});
