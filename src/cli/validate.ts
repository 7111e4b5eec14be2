import { collect, type RegisterCommand } from './command.js';
import { EXIT } from './errors.js';

export const registerValidate: RegisterCommand = (program, setExitCode) => {
  program
    .command('validate')
    .description('check playbooks without running them; all errors of all files, each with file:line:col and a hint (exit 2 on any)')
    .argument('<playbook...>', 'playbook files, folders of playbooks, or quoted globs')
    .option('--check-files', 'require the files that steps read to exist (default)', true)
    .option('--no-check-files', 'do not require the files that steps read to exist')
    .option('--var <name=value>', 'set a variable, overriding the playbook\'s vars (repeatable)', collect, [])
    .action(async (files: string[], opts: { checkFiles: boolean; var: string[] }) => {
      // Only what validation needs is loaded: no client, no renderer, no reference workbench.
      const [{ compileAll }, { expandPlaybookArgs }] = await Promise.all([import('./compile-input.js'), import('./playbook-args.js')]);
      const checked = compileAll(expandPlaybookArgs(files), opts.var, { checkFiles: opts.checkFiles, checkOnly: true, onValid: (file) => console.log(`OK ${file}`) });
      setExitCode(checked ? EXIT.ok : EXIT.usage);
    });
};
