import { FileWriteError } from '../files/atomic-write.js';
import { postRunStages } from '../steps/post-run/stages.js';
import type { Artefact, CaseSummary } from '../result/result.js';
import type { RunContext } from './run-context.js';

/**
 * Runs the post-run stages each plan asks for (its contact sheet, ...) once every case of the
 * run has ended, over the plan's cases of this run: a shard makes its figures of its own
 * cases. A stage that fails is a notice, never a lost run; one whose file could not be written
 * is also among the run's unwritten files.
 */
export async function runPostRunStages(run: RunContext, cases: readonly CaseSummary[]): Promise<Artefact[]> {
  const figures: Artefact[] = [];
  for (const plan of new Set(run.items.map((item) => item.plan))) {
    const mine = cases.filter((_, i) => run.items[i]?.plan === plan);
    for (const stage of postRunStages) {
      const args = plan[stage.key];
      if (args === undefined) continue;
      try {
        figures.push(
          ...(await stage.run(args, {
            playbook: plan.playbook,
            cases: mine,
            outputDir: run.outputDir,
            notice: run.notice,
          })),
        );
      } catch (err) {
        // A figure that was made but not written is a lost file of the run; anything else a notice.
        if (err instanceof FileWriteError) run.lost(err.path, err);
        else run.notice(`the ${stage.key} of ${plan.name} could not be made: ${(err as Error).message}`);
      }
    }
  }
  return figures;
}
