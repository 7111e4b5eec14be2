// Makes docs/review.png, the picture of `wbplay review` in the README and docs/review.md: twelve
// demo studies captured by the reference workbench as playbooks/cohort.yaml captures them, the
// first two passed, the third shown with a verdict, a comment and a tag given by the keyboard.
// The manifest names each study without a path (so the fields show no machine's folders) and
// adds the columns a real one has.
// Run: node --import tsx scripts/review-picture.ts   (needs /usr/bin/chromium)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { loadPlaybook } from '../src/compile/index.js';
import { createReporters } from '../src/report/factory.js';
import { startCaseReviewServer } from '../src/review/case-review-server.js';
import { runPlans } from '../src/run/runner.js';
import { embeddedWorkbenches } from '../src/sim/embedded.js';
import { writeDemoData } from '../src/sim/demo-data.js';

const picture = fileURLToPath(new URL('../docs/review.png', import.meta.url));

const PLAYBOOK = [
  'version: 1',
  'name: Lung cohort',
  'foreach:',
  '  csv: ../cases.csv',
  'steps:',
  '  - load: { file: "../data/${study.name}/ct.nrrd", as: ct }',
  '  - load: { file: "../data/${study.name}/tumour-label.nrrd", as: tumour, parent: ct, opacity: 0.6 }',
  '  - reinit: { nodes: [ct] }',
  '  - position: ["${study.tumour_x}", "${study.tumour_y}", "${study.tumour_z}"]',
  '  - camera: { window: stdmulti/3d, standard_view: anterior }',
  '  - screenshot: { of: stdmulti/axial, save: "${out}/${study.name}/axial.png" }',
  '  - screenshot: { of: stdmulti/coronal, save: "${out}/${study.name}/coronal.png" }',
  '  - screenshot: { of: stdmulti/3d, save: "${out}/${study.name}/3d.png" }',
  '',
].join('\n');

async function saved(page: Page): Promise<void> {
  await page.locator('#saved', { hasText: /^Saved / }).waitFor();
}

const dir = await mkdtemp(join(tmpdir(), 'wbplay-review-picture-'));
try {
  const project = join(dir, 'lung-cohort');
  await mkdir(join(project, 'playbooks'), { recursive: true });
  const { studies } = await writeDemoData(join(project, 'data'), { cohort: 12 });
  const sites = ['Heidelberg', 'Mannheim', 'Freiburg'];
  await writeFile(
    join(project, 'cases.csv'),
    [
      'name,site,scanner,tumour_x,tumour_y,tumour_z',
      ...studies.map(
        (s, i) => `${s.name},${sites[i % 3]},${i % 2 ? 'CT-B' : 'CT-A'},${s.tumour_x},${s.tumour_y},${s.tumour_z}`,
      ),
      '',
    ].join('\n'),
  );
  const playbook = join(project, 'playbooks', 'cohort.yaml');
  await writeFile(playbook, PLAYBOOK);
  const out = join(project, 'wbplay-out', 'cohort');
  await runPlans({
    plans: [loadPlaybook(playbook, { vars: { out }, env: {} })],
    workbenches: embeddedWorkbenches(1),
    reporter: createReporters(['json'], { outputDir: out, stream: { write: () => true }, isTTY: false, env: {} }),
    outputDir: out,
  });
  const server = await startCaseReviewServer({ outputDir: out, reviewer: 'Ana' });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 740 }, deviceScaleFactor: 1 });
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    for (let i = 0; i < 2; i++) {
      await page.keyboard.press('p');
      await saved(page);
      await page.keyboard.press('ArrowRight');
      await page.locator('body[data-ready="true"]').waitFor();
    }
    await page.keyboard.press('f');
    await saved(page);
    await page.keyboard.press('m');
    await page.keyboard.type('Label leaks past the lower edge of the tumour.');
    await page.keyboard.press('Escape');
    await saved(page);
    await page.keyboard.press('t');
    await page.keyboard.type('segmentation');
    await page.keyboard.press('Enter');
    await page.locator('#tags li').waitFor();
    await page.keyboard.press('Escape');
    await page.mouse.move(0, 0);
    await page.screenshot({ path: picture });
    console.log(`wrote ${picture}`);
  } finally {
    await browser.close();
    await server.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
