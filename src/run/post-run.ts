import type { Plan } from '../compile/plan.js';
import { postRunStages } from '../steps/post-run/stages.js';
import type { Artefact, CaseResult } from './result.js';

/**
 * Runs the post-run stages of each plan (its contact sheet, ...) once every case of the run
 * has ended, over the plan's cases of this run: a shard makes its figures of its own cases.
 * A stage that fails is a notice, never a lost run.
 */
export async function runPostRunStages(ran: ReadonlyArray<{ plan: Plan; result: CaseResult }>, outputDir: string, notice: (message: string) => void): Promise<Artefact[]> {
  const figures: Artefact[] = [];
  for (const plan of new Set(ran.map((r) => r.plan))) {
    const cases = ran.filter((r) => r.plan === plan).map((r) => r.result);
    for (const stage of postRunStages) {
      const args = plan[stage.key];
      if (args === undefined) continue;
      try {
        figures.push(...(await stage.run(args, { playbook: plan.playbook, cases, outputDir, notice })));
      } catch (err) {
        notice(`the ${stage.key} of ${plan.name} could not be made: ${(err as Error).message}`);
      }
    }
  }
  return figures;
}
