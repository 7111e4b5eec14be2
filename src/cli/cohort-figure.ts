import { relative, resolve } from 'node:path';
import { collect, type RegisterCommand } from './command.js';
import { CommandError, EXIT, reportError } from './errors.js';

/**
 * `wbplay cohort-figure PLAYBOOK OUT`: the playbook's `cohort_figure` made again from a finished
 * output folder, after its cases ran and, for `cases: representative`, after a review. No
 * workbench is needed: each capture carries the camera it was taken with.
 */
export const registerCohortFigure: RegisterCommand = (program, setExitCode) => {
  program
    .command('cohort-figure')
    .description(
      "make the playbook's cohort_figure again from the captures in a finished output folder (exit 1 when it cannot be made, 2 on an invalid playbook)",
    )
    .argument('<playbook>', 'the playbook whose cohort_figure to make')
    .argument('<out>', 'the output folder its run wrote (also the playbook variable `out`)')
    .option('--var <name=value>', 'set a playbook variable (repeatable)', collect, [])
    .action(async (playbook: string, outArg: string, opts: { var: string[] }) => {
      const [{ compileAll }, { makeCohortFigure, CohortFigureError }, { refuseHeld }] = await Promise.all([
        import('./compile-input.js'),
        import('../steps/post-run/cohort-figure-image.js'),
        import('../files/folder-lock.js'),
      ]);
      const out = resolve(outArg);
      try {
        const plans = await compileAll([playbook], [`out=${out}`, ...opts.var]);
        if (!plans) return setExitCode(EXIT.usage);
        const plan = plans[0]!;
        const figure = plan.cohort_figure;
        if (!figure)
          throw new CommandError(
            'FIGURE_FAILED',
            `${playbook} has no cohort_figure to make`,
            'add a `cohort_figure:` beside `steps:` (docs/figures.md, "Figures of a cohort")',
          );
        // A run still writing the folder may be replacing the very captures the figure shows.
        await refuseHeld(out, 'make a figure of its captures');
        const written = await makeCohortFigure(figure, {
          playbook: plan.playbook,
          outputDir: out,
          notice: (message) => process.stderr.write(`notice: ${message}\n`),
        }).catch((err: unknown) => {
          if (err instanceof CohortFigureError)
            throw new CommandError('FIGURE_FAILED', err.message, err.hint, EXIT.failed);
          throw err;
        });
        const shown = written.map((a) => relative(process.cwd(), resolve(out, a.path)) || a.path);
        process.stdout.write(`wrote the cohort figure: ${shown.join(', ')}\n`);
        setExitCode(EXIT.ok);
      } catch (err) {
        setExitCode(reportError(err, { code: 'FIGURE_FAILED', exitCode: EXIT.failed }));
      }
    });
};
