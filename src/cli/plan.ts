import { collect, type RegisterCommand } from './command.js';
import { EXIT, reportError } from './errors.js';

export const registerPlan: RegisterCommand = (program, setExitCode) => {
  program
    .command('plan')
    .description(
      'print the compiled plan (cases, numbered steps with their source lines and resolved values) without contacting any workbench',
    )
    .argument('<playbook>', 'playbook file')
    .option('--var <name=value>', "set a variable, overriding the playbook's vars (repeatable)", collect, [])
    .option('--project <name>', 'use the named project of wbplay.config.yaml')
    .option('--json', 'print the plan as JSON')
    .option('--check-files', 'require the files that steps read to exist (default)', true)
    .option('--no-check-files', 'do not require the files that steps read to exist')
    .action(async (file: string, opts: { var: string[]; json?: boolean; checkFiles: boolean; project?: string }) => {
      const [{ compileAll }, { formatPlan }, { configVarArgs }] = await Promise.all([
        import('./compile-input.js'),
        import('../compile/index.js'),
        import('./config.js'),
      ]);
      let fromConfig: string[];
      try {
        fromConfig = await configVarArgs(opts.project);
      } catch (err) {
        return setExitCode(reportError(err, { code: 'BAD_OPTION', exitCode: EXIT.usage }));
      }
      const [{ ArchiveAccess }, { DEFAULT_RETRY }, { loadConfig }] = await Promise.all([
        import('./archives.js'),
        import('../run/retry.js'),
        import('./config.js'),
      ]);
      const archives = new ArchiveAccess(await loadConfig(opts.project), { retry: DEFAULT_RETRY });
      let plan;
      try {
        [plan] =
          (await compileAll([file], [...fromConfig, ...opts.var], { checkFiles: opts.checkFiles, archives })) ?? [];
      } catch (err) {
        return setExitCode(reportError(err, { code: 'RUN_FAILED', exitCode: EXIT.failed }));
      } finally {
        await archives.close();
      }
      if (!plan) {
        setExitCode(EXIT.usage);
        return;
      }
      process.stdout.write(opts.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
      setExitCode(EXIT.ok);
    });
};
