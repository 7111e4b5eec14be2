import type { RegisterCommand } from './command.js';

/**
 * Every subcommand by name, in the order `wbplay --help` lists them, each loaded when needed: a
 * command line that names one loads that one alone, so `wbplay validate` does not load the
 * modules of `run`, `serve` and the rest at start.
 */
export const commands: ReadonlyArray<readonly [name: string, load: () => Promise<RegisterCommand>]> = [
  ['init', async () => (await import('./init.js')).registerInit],
  ['demo-data', async () => (await import('./demo-data.js')).registerDemoData],
  ['validate', async () => (await import('./validate.js')).registerValidate],
  ['plan', async () => (await import('./plan.js')).registerPlan],
  ['run', async () => (await import('./run.js')).registerRun],
  ['merge-reports', async () => (await import('./merge-reports.js')).registerMergeReports],
  ['cohort-figure', async () => (await import('./cohort-figure.js')).registerCohortFigure],
  ['show-report', async () => (await import('./show-report.js')).registerShowReport],
  ['ui', async () => (await import('./ui.js')).registerUi],
  ['review', async () => (await import('./review.js')).registerReview],
  ['record', async () => (await import('./record.js')).registerRecord],
  ['accept', async () => (await import('./accept.js')).registerAccept],
  ['cache', async () => (await import('./cache.js')).registerCache],
  ['schema', async () => (await import('./schema.js')).registerSchema],
  ['serve', async () => (await import('./serve.js')).registerServe],
];

/** The registrations a command line needs: the command it names, or all of them (help, an unknown word). */
export async function commandsFor(argv: readonly string[]): Promise<RegisterCommand[]> {
  const named = commands.filter(([name]) => name === argv[0]);
  return Promise.all((named.length > 0 ? named : commands).map(([, load]) => load()));
}
