import type { FSWatcher } from 'node:fs';
import { resolve } from 'node:path';
import { compilePlaybook, type Plan } from '../compile/index.js';
import { renderDiagnostic, type Renderable } from '../diagnostics/render.js';
import { ReporterFanout } from '../report/fan-out.js';
import { HtmlReporter } from '../report/html.js';
import { JsonReporter } from '../report/json.js';
import { formatSummary } from '../report/report-text.js';
import type { LiveRun } from '../report/ui-feed.js';
import type { UiProblem } from '../report/ui-state.js';
import type { RunOptions } from '../run/runner.js';
import type { WorkbenchUrls } from '../run/workbenches.js';
import { DEFAULT_OUT } from './compile-input.js';
import { describeError } from './errors.js';
import { watchedFiles, watchFiles } from './watch.js';

export interface SessionOptions {
  /** The playbook files, as the command line named them (folders and globs expanded). */
  playbooks: readonly string[];
  vars: Readonly<Record<string, string>>;
  outputDir: string;
  /** The one workbench of the session, and how each run reaches it (its token from the plans). */
  workbench: { url: string; stop(): Promise<void> };
  reach(plans: readonly Plan[]): Omit<WorkbenchUrls, 'urls'>;
  run: Pick<RunOptions, 'retry' | 'timeoutMs' | 'requestTimeoutMs' | 'golden'>;
  live: LiveRun;
  log(line: string): void;
  /** Aborted to end the session: the current run stops, nothing starts again. */
  signal: AbortSignal;
  debounceMs?: number;
}

/**
 * The runs of `wbplay ui`, by the watch mode's rules: the playbooks run at once, then again
 * whenever a playbook, an included file or a data file they read changes, or when the page
 * asks; always on the same workbench, each time from a clean scene (the nodes the last run
 * loaded are removed first). A playbook that does not compile is shown in the page with its
 * problems, and the files it read are watched, so the next good save runs again.
 */
export class UiSession {
  private pending = false;
  private wake: () => void = () => undefined;
  private watchers: FSWatcher[] = [];

  constructor(private readonly options: SessionOptions) {
    options.signal.addEventListener('abort', () => this.wake(), { once: true });
  }

  /** Another run as soon as the current one ends (or now, when none runs). */
  readonly again = (): void => {
    this.pending = true;
    this.wake();
  };

  /** Runs until the signal is aborted; the workbench is stopped at the end. */
  async runUntilStopped(): Promise<void> {
    const { options } = this;
    try {
      for (let run = 1; !options.signal.aborted; run++) {
        this.pending = false;
        options.live.begin(run);
        const { plans, files } = this.compile();
        this.watch(files);
        if (plans) await this.runPlans(run, plans);
        if (!this.pending && !options.signal.aborted) await new Promise<void>((done) => (this.wake = done));
      }
    } finally {
      for (const w of this.watchers) w.close();
      await options.workbench.stop();
    }
  }

  /** The plans, or the page's problems and the files to watch until they are fixed. */
  private compile(): { plans?: Plan[]; files: string[] } {
    const { options } = this;
    const plans: Plan[] = [];
    const problems: UiProblem[] = [];
    const read = new Set(options.playbooks.map((p) => resolve(p)));
    for (const file of options.playbooks) {
      let result: ReturnType<typeof compilePlaybook>;
      try {
        result = compilePlaybook(file, { vars: options.vars, defaultVars: { out: resolve(DEFAULT_OUT) } });
      } catch (err) {
        problems.push(problem({ code: 'INTERNAL', message: `could not compile ${file}: ${(err as Error).message}` }));
        continue;
      }
      for (const shown of result.sources.keys()) read.add(resolve(shown));
      if (result.plan) plans.push(result.plan);
      for (const d of result.diagnostics) problems.push(problem(d, (f) => result.sources.get(f)));
      // The live page runs one study at a time as you edit, and searches no archive.
      if (result.searches)
        problems.push(
          problem({
            code: 'FOREACH_SOURCE',
            message: `${file}: its cases are in a DICOMweb archive, which the live page does not search`,
            hint: 'author the steps on one series with `load: { dicomweb: { url, study, series } }`, then run the cohort with `wbplay run`',
          }),
        );
    }
    if (problems.length > 0) {
      options.live.showProblems(problems);
      options.log(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the playbooks: shown in the page`);
      return { files: [...read] };
    }
    return { plans, files: watchedFiles(plans) };
  }

  private async runPlans(run: number, plans: Plan[]): Promise<void> {
    const { options } = this;
    const { runPlans } = await import('../run/runner.js');
    try {
      // Each run starts from a clean scene: the run removes what the last one left (run/scene.ts).
      const reach = options.reach(plans);
      const reporter = new ReporterFanout([
        options.live,
        new JsonReporter(options.outputDir),
        new HtmlReporter(options.outputDir),
      ]);
      const result = await runPlans({
        ...options.run,
        plans,
        workbenches: { urls: [options.workbench.url], ...reach },
        reporter,
        outputDir: options.outputDir,
        // A study the journal calls up to date would show nothing: every run runs every case.
        force: true,
        afterStep: options.live.afterStep,
        // The page lists every case's steps while they wait.
        outlineEveryCase: true,
        signal: options.signal,
      });
      // The run went on without a reporter that failed; the page may be behind, so it is said here.
      for (const f of reporter.failures) options.log(`the ${f.reporter} reporter failed in ${f.event}: ${f.message}`);
      options.log(`run ${run}: ${result.status} (${formatSummary(result.summary)})`);
    } catch (err) {
      if (options.signal.aborted) return;
      options.live.showProblems([problem(describeError(err, 'RUN_FAILED'))]);
      options.log(`run ${run} could not run: ${(err as Error).message}`);
    }
  }

  private watch(files: readonly string[]): void {
    for (const w of this.watchers) w.close();
    this.watchers = watchFiles(files, this.options.debounceMs ?? 250, this.again);
  }
}

/** A problem as the page shows it: drawn by the one renderer of diagnostics, without colour. */
function problem(d: Renderable, source: (file: string) => string | undefined = () => undefined): UiProblem {
  return {
    code: d.code,
    message: d.message,
    ...(d.span ? { at: `${d.span.file}:${d.span.line}:${d.span.col}` } : {}),
    text: renderDiagnostic(d, { source, color: false }),
  };
}
