import { resolve } from 'node:path';
import type { RegisterCommand } from './command.js';
import { CommandError, EXIT, isFolderInUse, reportError } from './errors.js';

/** `wbplay accept`: the last run's captures of failed image checks become their goldens, without running again. */
export const registerAccept: RegisterCommand = (program, setExitCode) => {
  program
    .command('accept')
    .description("promote the captures of the last run's failed image checks to goldens, without running again")
    .argument('[dir]', "the run's output folder", 'wbplay-out')
    .option('--grep <regex>', 'only checks whose case name or golden path matches')
    .action(async (dir: string, opts: { grep?: string }) => {
      try {
        const [{ openReport }, { acceptCheck, reviewableChecks }, { refuseHeld }, { projectRoot }] = await Promise.all([
          import('../report/read-report.js'),
          import('../report/golden-review.js'),
          import('../files/folder-lock.js'),
          import('./config.js'),
        ]);
        let grep: RegExp | undefined;
        try {
          grep = opts.grep !== undefined ? new RegExp(opts.grep) : undefined;
        } catch (err) {
          throw new CommandError('BAD_OPTION', `--grep: ${(err as Error).message}`);
        }
        const outputDir = resolve(dir);
        // A run in the folder is rewriting the report and the captures these goldens would come from.
        await refuseHeld(outputDir, 'accept its captures');
        const checks = (await reviewableChecks(await openReport(outputDir), outputDir, projectRoot())).filter(
          (c) => !grep || grep.test(c.caseName) || grep.test(c.golden),
        );
        for (const check of checks) {
          await acceptCheck(check);
          console.log(`accepted ${check.golden} (${check.caseName}, step ${check.step})`);
        }
        if (checks.length === 0)
          console.log(`no failed image check to accept in ${dir}${grep ? ` matching ${opts.grep}` : ''}`);
        setExitCode(EXIT.ok);
      } catch (err) {
        setExitCode(
          reportError(err, { code: 'WRITE_FAILED', exitCode: isFolderInUse(err) ? EXIT.usage : EXIT.failed }),
        );
      }
    });
};
