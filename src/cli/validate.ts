import { setFlagsFromString } from 'node:v8';
import { collect, type RegisterCommand } from './command.js';
import { EXIT, reportError } from './errors.js';

export const registerValidate: RegisterCommand = (program, setExitCode) => {
  program
    .command('validate')
    .description(
      'check playbooks without running them; all errors of all files, each with file:line:col and a hint (exit 2 on any)',
    )
    .argument('<playbook...>', 'playbook files, folders of playbooks, or quoted globs')
    .option('--check-files', 'require the files that steps read to exist (default)', true)
    .option('--no-check-files', 'do not require the files that steps read to exist')
    .option('--var <name=value>', "set a variable, overriding the playbook's vars (repeatable)", collect, [])
    .option('--project <name>', 'use the named project of wbplay.config.yaml')
    .action(async (files: string[], opts: { checkFiles: boolean; var: string[]; project?: string }) => {
      // A check is over in a fraction of a second: V8's optimising compiler, which the parser's
      // loops would start, costs more than its code saves by then (bench/README.md, validate).
      setFlagsFromString('--no-opt');
      // Only what validation needs is loaded: no client, no renderer, no reference workbench.
      const [{ compileAll }, { expandPlaybookArgs }, { configVarArgs }] = await Promise.all([
        import('./compile-input.js'),
        import('./playbook-args.js'),
        import('./config.js'),
      ]);
      let fromConfig: string[];
      try {
        fromConfig = await configVarArgs(opts.project);
      } catch (err) {
        return setExitCode(reportError(err, { code: 'BAD_OPTION', exitCode: EXIT.usage }));
      }
      const checked = await compileAll(expandPlaybookArgs(files), [...fromConfig, ...opts.var], {
        checkFiles: opts.checkFiles,
        checkOnly: true,
        // Not console.log: its formatting machinery costs more at start-up than the line needs.
        onValid: (file) => process.stdout.write(`OK ${file}\n`),
      });
      setExitCode(checked ? EXIT.ok : EXIT.usage);
    });
};
