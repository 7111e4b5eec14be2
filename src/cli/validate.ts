import type { RegisterCommand } from './commands.js';

const EXIT_INVALID = 2;

export function collectVar(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export const registerValidate: RegisterCommand = (program, setExitCode) => {
  program
    .command('validate')
    .description('check playbooks without running them; all errors of all files, each with file:line:col and a hint (exit 2 on any)')
    .argument('<playbook...>', 'playbook files')
    .option('--check-files', 'require the files that steps read to exist (default)', true)
    .option('--no-check-files', 'do not require the files that steps read to exist')
    .option('--var <name=value>', 'set a variable, overriding the playbook\'s vars (repeatable)', collectVar, [])
    .action(async (files: string[], opts: { checkFiles: boolean; var: string[] }) => {
      // Only what validation needs is loaded: no client, no renderer, no reference workbench.
      const { compilePlaybook, parseVarAssignments } = await import('../compile/index.js');
      const { renderDiagnostics, useColor } = await import('../diagnostics/render.js');
      const color = useColor(process.stderr);
      const parsed = parseVarAssignments(opts.var);
      if (parsed.diagnostics.length > 0) {
        process.stderr.write(renderDiagnostics(parsed.diagnostics, { source: () => undefined, color }));
        setExitCode(EXIT_INVALID);
        return;
      }
      let failed = false;
      for (const file of files) {
        let result: ReturnType<typeof compilePlaybook>;
        try {
          result = compilePlaybook(file, { vars: parsed.vars, checkFiles: opts.checkFiles, checkOnly: true });
        } catch (err) {
          // A bug, not the user's mistake: say so in one line rather than with a stack trace.
          console.error(`wbplay validate: internal error while checking ${file}: ${(err as Error).message}; please report it`);
          failed = true;
          continue;
        }
        if (result.diagnostics.length === 0) {
          console.log(`OK ${file}`);
          continue;
        }
        failed = true;
        process.stderr.write(renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color }));
      }
      setExitCode(failed ? EXIT_INVALID : 0);
    });
};
