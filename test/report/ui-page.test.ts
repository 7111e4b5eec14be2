// `wbplay ui` in a real headless Chromium, from the command line: the page shows the steps and
// the capture of a small playbook; an edit of the playbook (another crosshair position) changes
// the capture shown without a reload and marks it changed against the run before; a failed
// image check is accepted as its golden from the page; step snapshots show each window after
// each step (after `position` not as before it); a syntax error is shown with its place and
// the next good save recovers, in the playbook or in a file it includes. Requests that do not come from the page are refused.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { spawnWbplay } from '../helpers/cohort.js';

const CHROMIUM = '/usr/bin/chromium';
const WAIT_MS = 60_000;

let dir = '';
let child: ChildProcess;
let output = '';
let stdout = '';
let url = '';
let browser: Browser;
let page: Page;
const errors: string[] = [];

function playbook(x: number): string {
  return [
    'version: 1',
    'name: Authoring',
    'steps:',
    '  - load: { file: data/ct.nrrd, as: ct }',
    '  - reinit',
    `  - position: [${x}, 52, 36]`,
    '  - screenshot: { of: stdmulti/axial, save: "${out}/axial.png" }',
    '  - expect_image: { of: stdmulti/sagittal, golden: goldens/sagittal.png }',
    '',
  ].join('\n');
}

/** Waits until the page shows run `n` ended (or its playbook problems). */
async function runEnded(n: number, phase: 'done' | 'problems' = 'done'): Promise<void> {
  await page.locator(`body[data-run="${n}"][data-phase="${phase}"]`).waitFor({ timeout: WAIT_MS });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-ui-'));
  await writeDemoData(join(dir, 'data'));
  await writeFile(join(dir, 'p.yaml'), playbook(56));
  child = spawnWbplay(['ui', 'p.yaml', '--no-open'], dir);
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within ${WAIT_MS} ms:\n${output}`)), WAIT_MS);
    child.stdout!.on('data', () => {
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
});

after(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

test('the URL is the first line of output that holds it; the page shows the steps and the capture', async () => {
  const first = stdout.split('\n').find((l) => l.includes('http://127.0.0.1'));
  assert.match(first ?? '', /^wbplay ui: serving http:\/\/127\.0\.0\.1:\d+\/ /);
  await runEnded(1);
  const rows = page.locator('#cases .step');
  assert.equal(await rows.count(), 5);
  assert.deepEqual(await rows.evaluateAll((r) => r.map((e) => e.getAttribute('data-status'))), [
    'passed',
    'passed',
    'passed',
    'passed',
    'passed',
  ]);
  assert.equal(await rows.nth(2).locator('.loc').textContent(), 'p.yaml:6', 'the step names its line');
  const shot = page.locator('#detail .gallery figure[data-kind="screenshot"] img');
  await shot.waitFor();
  assert.ok(await shot.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0), 'it loaded');
  assert.equal(await page.locator('#detail figure[data-kind="screenshot"]').getAttribute('data-change'), 'new');
  assert.deepEqual(errors, []);
});

test('an edit of the playbook changes the capture shown without a reload, marked changed with the comparison views', async () => {
  await page.evaluate(() => ((globalThis as unknown as { loaded: number }).loaded = 1));
  const before = await page.locator('#detail figure[data-kind="screenshot"] img').getAttribute('data-pixels');
  await writeFile(join(dir, 'p.yaml'), playbook(40));
  await runEnded(2);
  const figure = page.locator('#detail figure[data-kind="screenshot"]');
  assert.equal(await figure.getAttribute('data-change'), 'changed');
  assert.notEqual(await figure.locator('img').getAttribute('data-pixels'), before, 'other pixels are shown');
  assert.equal(await page.evaluate(() => (globalThis as unknown as { loaded?: number }).loaded), 1, 'no reload');
  await figure.click();
  const compare = page.locator('#detail .capture[data-kind="screenshot"] .compare');
  await compare.waitFor();
  assert.equal(await compare.locator('.view.side figcaption').first().textContent(), 'Previous run');
  assert.equal(await compare.locator('.img-expected').getAttribute('data-pixels'), before, 'the previous run, kept');
  assert.ok(await compare.locator('.img-diff').count(), 'with the changed pixels');
  await compare.locator('button[data-mode="blink"]').click();
  assert.equal(await compare.locator('.blink-label').textContent(), 'Previous run');
  await compare.locator('button[data-mode="slider"]').click();
  assert.equal(await compare.locator('[data-view="slider"]').isVisible(), true);
  assert.deepEqual(errors, []);
});

test('a failed image check is accepted as its golden from the page: the capture shown, written atomically', async () => {
  const check = page.locator('#cases .step[data-index="5"]');
  assert.equal(await check.getAttribute('data-status'), 'failed');
  await check.click();
  const compare = page.locator('#detail .capture[data-kind="actual"] .compare');
  assert.equal(await compare.locator('.view.side figcaption').first().textContent(), 'Golden');
  const shown = await compare.locator('.img-actual').getAttribute('data-file');
  await page.locator('#detail button.accept-one').click();
  await page.locator('#detail button.accepted').waitFor();
  assert.deepEqual(
    await readFile(join(dir, 'goldens', 'sagittal.png')),
    await readFile(join(dir, 'wbplay-out', shown!)),
    'the golden is the capture on the page, byte for byte',
  );
  assert.deepEqual(
    (await readdir(join(dir, 'goldens'))).filter((f) => f.startsWith('.')),
    [],
    'no temporary file is left',
  );
  await page.locator('#rerun').click();
  await runEnded(3);
  assert.equal(await page.locator('#cases .step[data-index="5"]').getAttribute('data-status'), 'passed');
  assert.deepEqual(errors, []);
});

test('step snapshots: each window after each step, when the page asks; after position not as before it', async () => {
  await page.locator('#cases .step[data-index="2"]').click();
  assert.match((await page.locator('#detail .hint-line').textContent()) ?? '', /Turn on step snapshots/);
  await page.locator('#snapshots').check();
  await runEnded(4);
  const axial = (): Promise<string | null> =>
    page.locator('#detail .snapshots figure[data-window="stdmulti/axial"] img').getAttribute('data-pixels');
  await page.locator('#cases .step[data-index="2"]').click();
  const windows = await page
    .locator('#detail .snapshots figure')
    .evaluateAll((f) => f.map((e) => e.getAttribute('data-window')));
  // The standard editor's windows, then the cells of the MxN editor (open too on the reference workbench).
  assert.deepEqual(windows.slice(0, 4), ['stdmulti/axial', 'stdmulti/sagittal', 'stdmulti/coronal', 'stdmulti/3d']);
  assert.ok(windows.slice(4).every((w) => w?.startsWith('mxn/')));
  const afterReinit = await axial();
  await page.locator('#cases .step[data-index="3"]').click();
  const afterPosition = await axial();
  assert.ok(afterReinit && afterPosition);
  assert.notEqual(afterPosition, afterReinit, 'the crosshair moved');
  await page.locator('#cases .step[data-index="4"]').click();
  assert.equal(await axial(), afterPosition, 'a screenshot does not change the scene');
  assert.deepEqual(errors, []);
});

test('a syntax error is shown with its place, its line and a hint; the next good save recovers', async () => {
  const broken = playbook(40).replace('  - reinit', '  - reinit: [oops');
  await writeFile(join(dir, 'p.yaml'), broken);
  await runEnded(5, 'problems');
  const text = (await page.locator('#problems pre').first().textContent()) ?? '';
  assert.match(text, /^error\[YAML_SYNTAX\]/);
  const line = Number(/--> p\.yaml:(\d+):\d+/.exec(text)?.[1]);
  assert.ok(text.includes(`${line} | ${broken.split('\n')[line - 1]}`), `the source line ${line}:\n${text}`);
  assert.match(text, /= hint: /);
  assert.equal(await page.locator('.panes').isVisible(), false, 'no captures beside the problems');
  await writeFile(join(dir, 'p.yaml'), playbook(48));
  await runEnded(6);
  assert.equal(await page.locator('#problems').isVisible(), false);
  const figure = page.locator('#detail figure[data-kind="screenshot"], #detail .capture[data-kind="screenshot"]');
  assert.ok((await figure.count()) > 0, 'captures again');
  assert.deepEqual(errors, []);
});

test('an error in an included file is shown, and the next save of that file recovers', async () => {
  await mkdir(join(dir, 'parts'), { recursive: true });
  await writeFile(join(dir, 'parts', 'view.yaml'), 'version: 1\nsteps:\n  - reinit\n');
  await writeFile(join(dir, 'p.yaml'), playbook(48).replace('  - reinit', '  - include: { file: parts/view.yaml }'));
  await runEnded(7);
  assert.equal(await page.locator('#cases .step[data-index="2"] .loc').textContent(), 'parts/view.yaml:3');
  await writeFile(join(dir, 'parts', 'view.yaml'), 'version: 1\nsteps:\n  - reinit: [oops\n');
  await runEnded(8, 'problems');
  assert.match((await page.locator('#problems pre').first().textContent()) ?? '', /--> parts\/view\.yaml:\d+:\d+/);
  await writeFile(join(dir, 'parts', 'view.yaml'), 'version: 1\nsteps:\n  - reinit\n');
  await runEnded(9);
  assert.deepEqual(errors, []);
});

test('requests that do not come from the page are refused; no path can be named or read outside the output folder', async () => {
  const html = await (await fetch(url)).text();
  const token = /name="wbplay-ui" content="([0-9a-f]+)"/.exec(html)![1]!;
  const origin = url.replace(/\/$/, '');
  const post = (path: string, headers: Record<string, string>, body: unknown = {}): Promise<Response> =>
    fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const golden = await readFile(join(dir, 'goldens', 'sagittal.png'));
  for (const path of ['/api/run', '/api/snapshots', '/api/accept']) {
    assert.equal((await post(path, { origin: 'http://evil.example', 'x-wbplay-ui': token })).status, 403, path);
    assert.equal((await post(path, { origin, 'x-wbplay-ui': 'guess' })).status, 403, `${path}: a wrong token`);
    assert.equal((await post(path, { origin })).status, 403, `${path}: no token`);
    assert.equal(
      (await post(path, { origin, 'x-wbplay-ui': token, 'sec-fetch-site': 'cross-site' })).status,
      403,
      `${path}: a cross-site fetch`,
    );
  }
  assert.equal(
    (await post('/api/accept', { origin, 'x-wbplay-ui': token }, { checks: ['../../goldens/sagittal.png'] })).status,
    404,
    'a path is not a check',
  );
  assert.equal((await fetch(`${origin}/api/events`)).status, 403, 'no event stream without the token');
  assert.equal(
    (await fetch(`${origin}/api/events`, { headers: { 'x-wbplay-ui': token, origin: 'http://evil.example' } })).status,
    403,
    'nor to another origin',
  );
  assert.deepEqual(await readFile(join(dir, 'goldens', 'sagittal.png')), golden, 'nothing was written');
  assert.equal((await fetch(`${origin}/..%2Fp.yaml`)).status, 404);
  assert.equal((await fetch(`${origin}/../goldens/sagittal.png`)).status, 404);
  assert.equal((await fetch(`${origin}/report.json`)).status, 200, 'files of the output folder are served');
  const status = await new Promise<number>((resolve, reject) => {
    request(url, { headers: { host: 'rebound.example:80' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
  assert.equal(status, 403, 'another Host');
});
