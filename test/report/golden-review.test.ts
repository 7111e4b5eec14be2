// Golden review: from the report served by show-report, in real Chromium, a click accepts a
// capture as its golden (written atomically) and a rerun passes; requests not from the page are
// refused, and nothing outside the run's goldens can be written or read. `wbplay accept` does
// the same without a browser.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { loadPlaybook } from '../../src/compile/index.js';
import { createReporters } from '../../src/report/factory.js';
import { startReviewServer } from '../../src/report/review-server.js';
import type { RunResult } from '../../src/result/result.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';

const CHROMIUM = '/usr/bin/chromium';
let dir = '';

function playbook(x: number): string {
  return [
    'version: 1',
    'name: Review',
    'steps:',
    '  - load: { file: data/ct.nrrd, as: ct }',
    '  - reinit',
    `  - position: [${x}, 52, 36]`,
    '  - expect_image: { of: stdmulti/sagittal, golden: goldens/sagittal.png }',
    '  - expect_image: { of: stdmulti/axial, golden: goldens/axial.png }',
    '',
  ].join('\n');
}

async function run(x: number, out: string): Promise<RunResult> {
  await writeFile(join(dir, 'review.yaml'), playbook(x));
  const outputDir = join(dir, out);
  const plan = loadPlaybook(join(dir, 'review.yaml'), { vars: { out: outputDir } });
  return runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: createReporters(['json'], { outputDir, stream: { write: () => true }, isTTY: false, env: {} }),
    outputDir,
    golden: { update: 'missing', ci: false },
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-review-'));
  await writeDemoData(join(dir, 'data'));
  assert.equal((await run(56, 'first')).status, 'passed');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a click on accept writes the capture over its golden, the page shows it, and a rerun passes', async (t) => {
  const failed = await run(30, 'changed');
  assert.equal(failed.status, 'failed');
  const failing = (await failed.cases.all())[0]!.steps.filter((s) => s.status === 'failed');
  const server = await startReviewServer({ outputDir: join(dir, 'changed') });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  await page.goto(server.url);
  const buttons = page.locator('button.accept-one');
  assert.equal(await buttons.count(), failing.length);
  const sagittal = failing.find((s) => s.image!.golden.endsWith('sagittal.png'))!;
  const actual = await readFile(join(dir, 'changed', sagittal.artefacts.find((a) => a.kind === 'actual')!.path));
  await page.locator('li.step', { hasText: 'compare stdmulti/sagittal' }).locator('button.accept-one').click();
  await page.locator('button.accepted').first().waitFor();
  assert.equal(
    await page.locator('li.step', { hasText: 'compare stdmulti/sagittal' }).locator('button.accept-one').textContent(),
    'Accepted as golden',
  );
  assert.deepEqual(
    await readFile(join(dir, 'goldens', 'sagittal.png')),
    actual,
    'the golden is the capture, byte for byte',
  );
  assert.deepEqual(
    (await readdir(join(dir, 'goldens'))).filter((f) => f.startsWith('.')),
    [],
    'no temporary file is left',
  );
  assert.deepEqual(errors, []);
  if (failing.length > 1) {
    await page.locator('button.accept-run').click();
    await page.locator('button.accept-run.accepted').waitFor();
  }
  assert.equal((await run(30, 'rerun')).status, 'passed');
});

test('requests that do not come from the page are refused; no path can be named or read outside the output folder', async (t) => {
  assert.equal((await run(80, 'forged')).status, 'failed');
  const goldenBefore = await readFile(join(dir, 'goldens', 'sagittal.png'));
  const server = await startReviewServer({ outputDir: join(dir, 'forged') });
  t.after(() => server.close());
  const html = await (await fetch(server.url)).text();
  const token = /name="wbplay-review" content="([0-9a-f]+)"/.exec(html)![1]!;
  const key = /data-checks="(\d+\.\d+)"/.exec(html)![1]!;
  const origin = server.url.replace(/\/$/, '');
  const post = (headers: Record<string, string>, checks: string[] = [key]): Promise<Response> =>
    fetch(`${origin}/api/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ checks }),
    });
  assert.equal((await post({ origin: 'http://evil.example', 'x-wbplay-review': token })).status, 403, 'another origin');
  assert.equal((await post({ origin, 'x-wbplay-review': 'guess' })).status, 403, 'a wrong token');
  assert.equal((await post({ origin })).status, 403, 'no token');
  assert.equal(
    (await post({ origin, 'x-wbplay-review': token, 'sec-fetch-site': 'cross-site' })).status,
    403,
    'a cross-site fetch',
  );
  assert.equal(
    (await post({ origin, 'x-wbplay-review': token }, ['../../etc/passwd'])).status,
    404,
    'a name that is not a check',
  );
  assert.deepEqual(await readFile(join(dir, 'goldens', 'sagittal.png')), goldenBefore, 'nothing was written');
  assert.equal((await fetch(`${origin}/..%2F..%2Fgoldens%2Fsagittal.png`)).status, 404);
  assert.equal((await fetch(`${origin}/../review.yaml`)).status, 404);
  // fetch will not send another Host; a raw request does, as a rebound name would.
  const status = await new Promise<number>((resolve, reject) => {
    request(server.url, { headers: { host: 'rebound.example:80' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
  assert.equal(status, 403, 'another Host');
});

test("wbplay accept promotes the last run's captures of failed checks, filtered by --grep", async () => {
  const failed = await run(20, 'cli');
  const shots = (await failed.cases.all())[0]!.steps.filter((s) => s.status === 'failed');
  assert.ok(shots.length >= 1);
  const result = await wbplay(['accept', 'cli', '--grep', 'sagittal'], dir);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /accepted .*goldens\/sagittal\.png \(Review, step 4\)/);
  assert.doesNotMatch(result.stdout, /axial\.png/);
  const rest = await wbplay(['accept', 'cli'], dir);
  assert.equal(rest.code, 0, rest.stderr);
  assert.equal((await run(20, 'after-accept')).status, 'passed');
});
