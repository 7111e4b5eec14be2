import { compilePlaybook, parseVarAssignments, type CompileOptions, type Plan } from '../compile/index.js';
import { renderDiagnostics, useColor } from '../diagnostics/render.js';

/**
 * Compiles every playbook of a command into its plan. Every problem of every file goes to
 * stderr, rendered with its source; the result is undefined when there was any.
 */
export async function compileAll(command: string, files: readonly string[], varArgs: readonly string[], options: Pick<CompileOptions, 'checkFiles'> = {}): Promise<Plan[] | undefined> {
  const color = useColor(process.stderr);
  const parsed = parseVarAssignments([...varArgs]);
  if (parsed.diagnostics.length > 0) {
    process.stderr.write(renderDiagnostics(parsed.diagnostics, { source: () => undefined, color }));
    return undefined;
  }
  const plans: Plan[] = [];
  let failed = false;
  for (const file of files) {
    let result: ReturnType<typeof compilePlaybook>;
    try {
      result = compilePlaybook(file, { vars: parsed.vars, ...options });
    } catch (err) {
      // A bug, not the user's mistake: one line rather than a stack trace.
      process.stderr.write(`wbplay ${command}: internal error while compiling ${file}: ${(err as Error).message}; please report it\n`);
      failed = true;
      continue;
    }
    if (result.plan) plans.push(result.plan);
    else {
      failed = true;
      process.stderr.write(renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color }));
    }
  }
  return failed ? undefined : plans;
}
