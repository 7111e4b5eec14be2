import type { RegisterCommand } from './commands.js';
import { collectVar } from './validate.js';

const EXIT_INVALID = 2;

export const registerPlan: RegisterCommand = (program, setExitCode) => {
  program
    .command('plan')
    .description('print the compiled plan (cases, numbered steps with their source lines and resolved values) without contacting any workbench')
    .argument('<playbook>', 'playbook file')
    .option('--var <name=value>', 'set a variable, overriding the playbook\'s vars (repeatable)', collectVar, [])
    .option('--json', 'print the plan as JSON')
    .option('--check-files', 'require the files that steps read to exist (default)', true)
    .option('--no-check-files', 'do not require the files that steps read to exist')
    .action(async (file: string, opts: { var: string[]; json?: boolean; checkFiles: boolean }) => {
      const { compilePlaybook, formatPlan, parseVarAssignments } = await import('../compile/index.js');
      const { renderDiagnostics, useColor } = await import('../diagnostics/render.js');
      const color = useColor(process.stderr);
      const parsed = parseVarAssignments(opts.var);
      if (parsed.diagnostics.length > 0) {
        process.stderr.write(renderDiagnostics(parsed.diagnostics, { source: () => undefined, color }));
        setExitCode(EXIT_INVALID);
        return;
      }
      let result: ReturnType<typeof compilePlaybook>;
      try {
        result = compilePlaybook(file, { vars: parsed.vars, checkFiles: opts.checkFiles });
      } catch (err) {
        console.error(`wbplay plan: internal error while compiling ${file}: ${(err as Error).message}; please report it`);
        setExitCode(1);
        return;
      }
      if (!result.plan) {
        process.stderr.write(renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color }));
        setExitCode(EXIT_INVALID);
        return;
      }
      process.stdout.write(opts.json ? `${JSON.stringify(result.plan, null, 2)}\n` : formatPlan(result.plan));
      setExitCode(0);
    });
};
