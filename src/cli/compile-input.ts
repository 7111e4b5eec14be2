import { resolve } from 'node:path';
import { compilePlaybook, parseVarAssignments, type CompileOptions, type Plan } from '../compile/index.js';
import { searchKey, type ArchiveSearch, type ArchiveSeries } from '../compile/foreach-dicomweb.js';
import { renderDiagnostics } from '../diagnostics/render.js';
import { useColor } from '../report/colors.js';
import { CommandError, reportError } from './errors.js';

/** Where output goes when neither `--out` nor the playbook says: `${out}` is always defined. */
export const DEFAULT_OUT = 'wbplay-out';

export interface CompileInputOptions extends Pick<CompileOptions, 'checkFiles' | 'checkOnly'> {
  /** Called for each file without any problem, in order. */
  onValid?(file: string): void;
  /**
   * Searches the archives of `foreach: dicomweb` playbooks. Without it (`validate`) such a
   * playbook is checked without its cases.
   */
  archives?: { cacheRoot: string; search(search: ArchiveSearch): Promise<ArchiveSeries[]> };
}

/**
 * Compiles (or, with `checkOnly`, checks) every playbook of a command. Every problem of every
 * file goes to stderr, rendered with its source; the result is undefined when there was any.
 */
export async function compileAll(
  files: readonly string[],
  varArgs: readonly string[],
  options: CompileInputOptions = {},
): Promise<Plan[] | undefined> {
  const { onValid, archives, ...compileOptions } = options;
  const found = new Map<string, ArchiveSeries[]>();
  const results = archives
    ? { cacheRoot: archives.cacheRoot, found: (s: ArchiveSearch) => found.get(searchKey(s)) }
    : undefined;
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
      const compile = (): ReturnType<typeof compilePlaybook> =>
        compilePlaybook(file, {
          vars: parsed.vars,
          defaultVars: { out: resolve(DEFAULT_OUT) },
          ...compileOptions,
          ...(results ? { archives: results } : {}),
        });
      result = compile();
      // A cohort from an archive: its search is made, then the playbook compiled with the answer.
      if (result.searches && archives && result.diagnostics.length === 0) {
        for (const search of result.searches) found.set(searchKey(search), await archives.search(search));
        result = compile();
      }
    } catch (err) {
      // An archive that cannot be searched is the run's to report (unreachable, refused).
      if (isArchiveError(err)) throw err;
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
    if (result.warnings.length > 0)
      process.stderr.write(renderDiagnostics(result.warnings, { source: (f) => result.sources.get(f), color }));
    if (result.plan) plans.push(result.plan);
    onValid?.(file);
  }
  return failed ? undefined : plans;
}

function isArchiveError(err: unknown): boolean {
  return err instanceof Error && err.name === 'DicomwebError';
}
