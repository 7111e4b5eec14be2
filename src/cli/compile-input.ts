import { resolve } from 'node:path';
import { compilePlaybook, parseVarAssignments, type CompileOptions, type Plan } from '../compile/index.js';
import { renderDiagnostics } from '../diagnostics/render.js';
import { useColor } from '../report/colors.js';
import { CommandError, reportError } from './errors.js';

/** Where output goes when neither `--out` nor the playbook says: `${out}` is always defined. */
export const DEFAULT_OUT = 'wbplay-out';

export interface CompileInputOptions extends Pick<CompileOptions, 'checkFiles' | 'checkOnly'> {
  /** Called for each file without any problem, in order. */
  onValid?(file: string): void;
}

/**
 * Compiles (or, with `checkOnly`, checks) every playbook of a command. Every problem of every
 * file goes to stderr, rendered with its source; the result is undefined when there was any.
 */
export function compileAll(
  files: readonly string[],
  varArgs: readonly string[],
  options: CompileInputOptions = {},
): Plan[] | undefined {
  const { onValid, ...compileOptions } = options;
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
      result = compilePlaybook(file, {
        vars: parsed.vars,
        defaultVars: { out: resolve(DEFAULT_OUT) },
        ...compileOptions,
      });
    } catch (err) {
      // A bug, not the user's mistake: one error rather than a stack trace.
      reportError(
        new CommandError(
          'INTERNAL',
          `could not compile ${file}: ${(err as Error).message}`,
          'this is a bug in wbplay, not in the playbook; please report it',
        ),
      );
      failed = true;
      continue;
    }
    if (result.diagnostics.length > 0 || (!result.plan && compileOptions.checkOnly !== true)) {
      failed = true;
      process.stderr.write(renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color }));
      continue;
    }
    if (result.plan) plans.push(result.plan);
    onValid?.(file);
  }
  return failed ? undefined : plans;
}
