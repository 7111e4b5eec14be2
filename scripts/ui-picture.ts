// Makes docs/ui.png, the picture of `wbplay ui` in docs/ui.md: a figure playbook on the
// reference workbench, step snapshots on, then an edit of the tumour's opacity, with the
// screenshot step chosen: its capture against the run before, and every window after it.
// Run: node --import tsx scripts/ui-picture.ts   (needs /usr/bin/chromium)
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { writeDemoData } from '../src/sim/demo-data.js';

const picture = fileURLToPath(new URL('../docs/ui.png', import.meta.url));
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const playbook = (opacity: number): string =>
  [
    'version: 1',
    'name: Tumour figure',
    'steps:',
    '  - load: { file: data/ct.nrrd, as: ct, name: CT }',
    '  - load: { file: data/tumour-label.nrrd, as: tumour, parent: ct, opacity: 0.6 }',
    '  - reinit: { nodes: [ct] }',
    '  - position: [56, 52, 36]',
    '  - camera: { window: stdmulti/3d, standard_view: anterior }',
    `  - set: { node: tumour, opacity: ${opacity} }`,
    '  - screenshot: { of: stdmulti/axial, save: "${out}/axial.png" }',
    '  - expect_image: { of: stdmulti/sagittal, golden: goldens/sagittal.png }',
    '',
  ].join('\n');

async function ended(page: Page, run: number): Promise<void> {
  await page.locator(`body[data-run="${run}"][data-phase="done"]`).waitFor({ timeout: 60_000 });
}

// The folder's name is never shown: the page shows paths from the working folder.
const dir = await mkdtemp(join(tmpdir(), 'wbplay-ui-picture-'));
await writeDemoData(join(dir, 'data'));
await writeFile(join(dir, 'figure.yaml'), playbook(0.6));
const child = spawn(process.execPath, ['--import', tsx, main, 'ui', 'figure.yaml', '--no-open'], {
  cwd: dir,
  env: { PATH: process.env.PATH },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(seen);
      if (m) resolve(m[0]);
    });
    child.once('exit', (code) => reject(new Error(`wbplay ui exited with ${code}: ${seen}`)));
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 1 });
  await page.goto(url);
  await ended(page, 1);
  await page.locator('#snapshots').check();
  await ended(page, 2);
  await writeFile(join(dir, 'figure.yaml'), playbook(0.2));
  await ended(page, 3);
  await page.locator('#cases .step[data-index="7"]').click();
  // The event stream never goes idle: wait for the images instead.
  await page.waitForFunction(
    "Array.from(document.querySelectorAll('#detail img')).every((i) => i.complete && i.naturalWidth > 0)",
  );
  await page.screenshot({ path: picture });
  await browser.close();
} finally {
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
}
