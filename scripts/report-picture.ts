// Makes docs/report.png, the picture of the HTML report in the README: a small regression
// run on the reference workbench in which one study's view changed, shown in Chromium.
// Run: node --import tsx scripts/report-picture.ts   (needs /usr/bin/chromium)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { loadPlaybook } from '../src/compile/index.js';
import { HtmlReporter } from '../src/report/html.js';
import { runPlans } from '../src/run/runner.js';
import { embeddedWorkbenches } from '../src/sim/embedded.js';
import { writeDemoData } from '../src/sim/demo-data.js';

const picture = new URL('../docs/report.png', import.meta.url).pathname;
const dir = await mkdtemp(join(tmpdir(), 'wbplay-picture-'));
// Paths in the report are shown relative to the working folder.
process.chdir(dir);
try {
  await writeDemoData(join(dir, 'data'), { cohort: 3 });
  const playbook = join(dir, 'regression.yaml');
  await writeFile(
    playbook,
    `version: 1\nname: Regression\nforeach:\n  csv: data/studies.csv\nsteps:\n` +
      `  - load: { file: "\${study.path}/ct.nrrd", as: ct }\n` +
      `  - load: { file: "\${study.path}/tumour-label.nrrd", as: tumour, parent: ct, color: [1.0, 0.3, 0.2], opacity: 0.6 }\n` +
      `  - reinit: { nodes: [ct] }\n` +
      `  - position: ["\${study.tumour_x}", "\${study.tumour_y}", "\${study.tumour_z}"]\n` +
      `  - set: { node: tumour, opacity: 0.6 }\n` +
      `  - expect_image: { of: stdmulti/axial, golden: "goldens/\${study.name}.png", max_diff_ratio: 0.001 }\n`,
  );
  // Goldens recorded with the tumour at 0.6, then study-002 is checked with it at 0.2.
  await runPlans({
    plans: [loadPlaybook('regression.yaml')],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: join(dir, 'record'),
  });
  const plan = loadPlaybook('regression.yaml');
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
  const out = join(dir, 'report');
  await runPlans({
    plans: [{ ...plan, cases: changed }],
    workbenches: embeddedWorkbenches(1),
    reporter: new HtmlReporter(out),
    outputDir: out,
    golden: { update: 'none', ci: true },
  });

  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  const page = await browser.newPage({ viewport: { width: 1200, height: 1250 }, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(join(out, 'report.html')).href);
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: picture });
  await browser.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
