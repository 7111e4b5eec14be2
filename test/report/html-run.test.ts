// The HTML report of a real run, opened in headless Chromium: a cohort on the embedded
// reference workbench where one study's view no longer matches its golden. The report must
// find the images the run wrote (paths relative to the output folder) and show the failure first.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { loadPlaybook } from '../../src/compile/index.js';
import { createReporters } from '../../src/report/factory.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { writeDemoData } from '../../src/sim/demo-data.js';

interface Img {
  complete: boolean;
  naturalWidth: number;
  addEventListener(type: string, f: () => void, o?: object): void;
}

let dir = '';
let context: BrowserContext | undefined;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-html-run-'));
  await writeDemoData(join(dir, 'data'), { cohort: 2 });
  await writeFile(
    join(dir, 'check.yaml'),
    'version: 1\nname: Check\nforeach:\n  csv: data/studies.csv\nsteps:\n' +
      '  - load: { file: "${study.path}/ct.nrrd", as: ct }\n  - reinit\n' +
      '  - set: { node: ct, opacity: "${opacity}" }\n' +
      '  - expect_image: { of: stdmulti/axial, golden: "goldens/${study.name}.png" }\n',
  );
});

after(async () => {
  await context?.close();
  await rm(dir, { recursive: true, force: true });
});

test('the report of a run with a changed view loads, shows the failure first, and finds its images', async () => {
  const run = async (
    opacity: string,
    out: string,
    plan = loadPlaybook(join(dir, 'check.yaml'), { vars: { opacity } }),
  ) =>
    runPlans({
      plans: [plan],
      workbenches: embeddedWorkbenches(1),
      reporter: createReporters(['html', 'json'], {
        outputDir: out,
        stream: { write: () => true },
        isTTY: false,
        env: {},
      }),
      outputDir: out,
    });
  await run('1.0', join(dir, 'record'));
  // The second study is checked with another opacity than its golden was recorded with.
  const base = loadPlaybook(join(dir, 'check.yaml'), { vars: { opacity: '1.0' } });
  const changed = loadPlaybook(join(dir, 'check.yaml'), { vars: { opacity: '0.4' } });
  const out = join(dir, 'report');
  const result = await run('', out, { ...base, cases: [base.cases[0]!, changed.cases[1]!] });
  assert.deepEqual(
    result.cases.summaries.map((c) => c.status),
    ['passed', 'failed'],
  );

  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => void errors.push(e.message));
  await page.goto(pathToFileURL(join(out, 'report.html')).href, { waitUntil: 'load' });

  const first = page.locator('details.case').first();
  assert.equal(await first.getAttribute('data-status'), 'failed');
  assert.match((await first.locator('.case-name').textContent()) ?? '', /study-002/);
  for (const cls of ['img-expected', 'img-actual', 'img-diff']) {
    const img = first.locator(`.compare img.${cls}`);
    await img.evaluate((el) =>
      (el as unknown as Img).complete ? null : new Promise((r) => el.addEventListener('load', r, { once: true })),
    );
    assert.ok((await img.evaluate((el) => (el as unknown as Img).naturalWidth)) > 0, `${cls} loads`);
  }
  assert.equal(await page.locator('figure.broken').count(), 0);
  assert.deepEqual(errors, []);
});
