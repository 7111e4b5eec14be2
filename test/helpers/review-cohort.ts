// A finished cohort of many cases for the review tests and the review benchmark: demo studies
// run for real on the embedded reference workbench, their cases then repeated under new names,
// each repeat with copies of its captures (bytes the workbench made) in a folder of its own,
// written as the json reporter writes a run.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlaybook } from '../../src/compile/index.js';
import { writeReportFiles } from '../../src/report/factory.js';
import { runOf } from '../../src/result/case-list.js';
import { summarize, type CaseResult, type Status } from '../../src/result/result.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { runPlans } from '../../src/run/runner.js';

/** Writes a run of `count` cases into `dir/out`; returns that folder. */
export async function writeReviewCohort(dir: string, count: number, studies = 4): Promise<string> {
  const data = join(dir, 'data');
  const seed = join(dir, 'seed');
  await writeDemoData(data, { cohort: studies });
  const example = fileURLToPath(new URL('../../playbooks/cohort.yaml', import.meta.url));
  const run = await runPlans({
    plans: [loadPlaybook(example, { vars: { data, out: seed } })],
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: seed,
  });
  const made = await run.cases.all();
  const out = join(dir, 'out');
  const cases: CaseResult[] = [];
  for (let i = 0; i < count; i++) {
    const from = made[i % made.length]!;
    const name = `case-${String(i + 1).padStart(5, '0')}`;
    await mkdir(join(out, name), { recursive: true });
    const steps = [];
    for (const s of from.steps) {
      const artefacts = [];
      for (const a of s.artefacts) {
        const file = `${name}/${a.path.split('/').pop()!}`;
        await copyFile(join(seed, a.path), join(out, file));
        artefacts.push({ ...a, path: file });
      }
      steps.push({ ...s, artefacts });
    }
    // A few cases failed, as in a real cohort, so the status filter has something to find.
    const status: Status = i % 37 === 5 ? 'failed' : from.status;
    cases.push({ ...from, id: name, name, status, study: { ...from.study, name, site: `site-${(i % 7) + 1}` }, steps });
  }
  const { cases: _made, ...head } = run;
  await writeReportFiles(runOf({ ...head, cases, summary: summarize(cases) }), out, ['json']);
  return out;
}
