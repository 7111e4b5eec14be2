// Makes docs/report.png, the picture of the HTML report in the README and docs/reports.md: a
// small regression run on the reference workbench in which one study's view changed, shown in
// Chromium. The run happens in a project folder of a neutral name, and the report names its
// files from that project's root, so the picture shows no machine's folders.
// Run: node --import tsx scripts/report-picture.ts   (needs /usr/bin/chromium)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadPlaybook } from '../src/compile/index.js';
import { createReporters } from '../src/report/factory.js';
import { runPlans } from '../src/run/runner.js';
import { embeddedWorkbenches } from '../src/sim/embedded.js';
import { writeDemoData } from '../src/sim/demo-data.js';

const PLAYBOOK = [
  'version: 1',
  'name: Regression',
  'foreach:',
  '  csv: ../data/studies.csv',
  'steps:',
  '  - load: { file: "${study.path}/ct.nrrd", as: ct }',
  '  - load: { file: "${study.path}/tumour-label.nrrd", as: tumour, parent: ct, opacity: 0.6 }',
  '  - reinit: { nodes: [ct] }',
  '  - position: ["${study.tumour_x}", "${study.tumour_y}", "${study.tumour_z}"]',
  '  - set: { node: tumour, opacity: 0.6 }',
  '  - expect_image: { of: stdmulti/axial, golden: "goldens/${study.name}.png", max_diff_ratio: 0.001 }',
  '',
].join('\n');

/**
 * Runs the picture's regression in `<parent>/lung-regression` (goldens recorded with the tumour
 * at 0.6, then study-002 checked with it at 0.2) and writes its HTML report, as `wbplay run`
 * would, to `wbplay-out/` there; returns the report's path.
 */
export async function pictureReport(parent: string): Promise<string> {
  const project = join(parent, 'lung-regression');
  await mkdir(join(project, 'playbooks'), { recursive: true });
  await writeDemoData(join(project, 'data'), { cohort: 3 });
  const playbook = join(project, 'playbooks', 'regression.yaml');
  await writeFile(playbook, PLAYBOOK);
  const options = { env: {} };
  await runPlans({
    plans: [loadPlaybook(playbook, options)],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: join(project, 'record'),
  });
  const plan = loadPlaybook(playbook, options);
  const changed = plan.cases.map((c) =>
    c.id === 'study-002'
      ? {
          ...c,
          steps: c.steps.map((s) =>
            s.kind === 'set' ? { ...s, description: 'set tumour: opacity=0.2', args: { ...s.args, opacity: 0.2 } } : s,
          ),
        }
      : c,
  );
  const out = join(project, 'wbplay-out');
  const reporter = createReporters(['html'], {
    outputDir: out,
    stream: { write: () => true },
    isTTY: false,
    env: {},
    root: project,
  });
  await runPlans({
    plans: [{ ...plan, cases: changed }],
    workbenches: embeddedWorkbenches(1),
    reporter,
    outputDir: out,
    golden: { update: 'none', ci: true },
  });
  return join(out, 'report.html');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { chromium } = await import('playwright-core');
  const picture = fileURLToPath(new URL('../docs/report.png', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-picture-'));
  try {
    const report = await pictureReport(dir);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    const page = await browser.newPage({ viewport: { width: 1200, height: 1250 }, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(report).href);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: picture });
    await browser.close();
    console.log(`wrote ${picture}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
