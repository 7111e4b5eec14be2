import {
  DefaultRenderer,
  figures,
  Listr,
  ListrDefaultRendererLogLevels,
  ListrLogger,
  ListrLogLevels,
  ProcessOutput,
  type ListrTask,
} from 'listr2';
import { Writable } from 'node:stream';
import type { Attempt, CaseInfo, CaseResult, RunResult, StepInfo, StepResult } from '../result/result.js';
import { createPalette, paintStatus, type Palette } from './colors.js';
import { CohortProgress } from './progress.js';
import { isFailedImageCheck, terminalImageHint } from './hints.js';
import type { ReportNames } from './names.js';
import { WrittenFiles } from './written.js';
import type { OutputStream, Reporter, RunStartInfo } from '../result/reporter.js';
import {
  caseProblem,
  formatDuration,
  formatError,
  formatSpan,
  printable,
  problemLines,
  stepLabel,
  stepProblem,
  unusedGoldensLine,
  verdictLine,
} from './report-text.js';

export interface TaskListOptions {
  stream: OutputStream;
  color?: boolean;
  /** Runs with more cases than this show overall progress and one row per worker instead of a row per case. */
  maxCaseRows?: number;
  /** listr2's live renderer (a terminal) or its line-per-event fallback. Default: live on a TTY. */
  live?: boolean;
  now?: () => number;
  /** How files are named: the output folder in the commands of hints. */
  names?: ReportNames;
}

/** What this module needs of a listr2 task wrapper. */
interface TaskHandle {
  title: string;
  output: string;
  skip(message?: string): void;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** listr2's renderer, told that it may draw on the stream it is given rather than on `process.stdout`. */
class StreamRenderer extends DefaultRenderer {
  static override nonTTY = true;
}

/** A row's title is kept here too: events can arrive before listr2 has started the row's task. */
interface Row {
  title: string;
  task?: TaskHandle;
}

interface CaseRow extends Row {
  info: CaseInfo;
  started: Deferred<boolean>;
  steps: Map<number, Deferred<StepResult | undefined>>;
  stepRows: Map<number, Row>;
}

interface WorkerRow extends Row {
  label: string;
  cases: number;
}

function retitle(row: Row | undefined, title: string): void {
  if (!row) return;
  row.title = title;
  if (row.task) row.task.title = title;
}

/**
 * The terminal display, and the only module that knows listr2. The runner drives everything:
 * each listr2 task just waits for the reporter events of its case (or worker), so listr2 only
 * draws. Small runs show each case with its steps live; cohorts show one progress line
 * (done/total, failures, rate, ETA) and what each worker is doing.
 */
export class TaskListReporter implements Reporter {
  readonly name = 'tasklist';
  private readonly palette: Palette;
  private readonly now: () => number;
  private readonly cases = new Map<string, CaseRow>();
  private readonly workers: WorkerRow[] = [];
  private readonly workerOf = new Map<number, WorkerRow>();
  private readonly caseWorker = new Map<string, WorkerRow>();
  private readonly notices: string[] = [];
  private readonly runEnd = deferred<void>();
  private progress?: CohortProgress;
  private readonly progressRow: Row & { failures: string[] } = { title: '', failures: [] };
  private running?: Promise<unknown>;
  /** Drawn live, or one line per event (where parallel cases interleave, so steps name their case). */
  private live = true;
  /** Whether an image check failed: the end of the run then says how to review it. */
  private imageFailed = false;
  private readonly written: WrittenFiles;

  constructor(private readonly options: TaskListOptions) {
    this.palette = createPalette(options.color ?? false);
    this.written = new WrittenFiles(options.names);
    this.now = options.now ?? Date.now;
  }

  onRunStart(info: RunStartInfo): void {
    const live = this.options.live ?? this.options.stream.isTTY === true;
    this.live = live;
    const cohort = info.cases.length > (this.options.maxCaseRows ?? 12);
    const tasks = cohort ? this.cohortTasks(info) : info.cases.map((c) => this.caseTask(c));
    const logger = new ListrLogger({
      processOutput: processOutput(this.options.stream, this.palette.enabled),
      useIcons: true,
    });
    const listr = new Listr(tasks as ListrTask[], {
      concurrent: cohort ? true : Math.max(1, info.workers),
      exitOnError: false,
      registerSignalListeners: false,
      renderer: (live ? StreamRenderer : 'simple') as 'default',
      // A case with a failed step failed: a cross, not listr2's "completed with warnings".
      rendererOptions: {
        logger,
        color: this.colors(),
        icon: { [ListrDefaultRendererLogLevels.COMPLETED_WITH_FAILED_SUBTASKS]: figures.cross },
        collapseSubtasks: true,
        formatOutput: 'truncate',
      },
      fallbackRendererCondition: false,
    });
    // Failures are the runner's business; listr2's own verdict on its waiting tasks is not.
    this.running = listr.run().catch(() => undefined);
  }

  onCaseStart(c: CaseInfo, worker: number): void {
    const row = this.cases.get(key(c));
    if (row) {
      retitle(row, `${this.caseName(c)} ${this.palette.dim(`· worker ${worker}`)}`);
      row.started.resolve(true);
    }
    const w = this.worker(worker);
    if (w) {
      this.caseWorker.set(key(c), w);
      retitle(w, `${w.label} · ${printable(c.name)}`);
    }
  }

  onStepStart(c: CaseInfo, step: StepInfo): void {
    const w = this.caseWorker.get(key(c));
    if (w)
      retitle(w, `${w.label} · ${printable(c.name)} · ${step.index}/${c.steps.length} ${printable(stepLabel(step))}`);
  }

  onStepRetry(c: CaseInfo, step: StepInfo, attempt: Attempt, delayMs: number): void {
    const why = attempt.error ? formatError(attempt.error) : 'failed';
    const note = this.palette.yellow(
      `attempt ${attempt.n} failed: ${printable(why)}; retrying in ${formatDuration(delayMs)}`,
    );
    retitle(this.cases.get(key(c))?.stepRows.get(step.index), `${this.stepName(c, step)} ${note}`);
    const w = this.caseWorker.get(key(c));
    if (w) retitle(w, `${w.label} · ${printable(c.name)} · ${printable(stepLabel(step))} ${note}`);
  }

  onStepEnd(c: CaseInfo, result: StepResult): void {
    if (isFailedImageCheck(result.error)) this.imageFailed = true;
    this.written.record(result);
    this.cases.get(key(c))?.steps.get(result.index)?.resolve(result);
  }

  onCaseEnd(result: CaseResult): void {
    const row = this.cases.get(key(result));
    if (row) {
      retitle(
        row,
        `${this.caseName(result)} ${paintStatus(this.palette, result.status)} ${this.palette.dim(`· ${formatDuration(result.durationMs)}`)}`,
      );
      for (const step of row.steps.values()) step.resolve(undefined);
      row.started.resolve(true);
    }
    if (this.progress) {
      this.progress.finish(result);
      if (result.status === 'failed' || result.status === 'error') {
        const line = this.palette.red(`✖ ${printable(caseProblem(result))}`);
        this.progressRow.failures.push(line);
        if (this.progressRow.task) this.progressRow.task.output = line;
      }
      this.refreshProgress();
      const w = this.caseWorker.get(key(result));
      if (w) {
        w.cases++;
        retitle(w, `${w.label} · ${this.palette.dim('waiting for the next case')}`);
      }
    }
  }

  onNotice(message: string): void {
    this.notices.push(message);
  }

  async onRunEnd(result: RunResult): Promise<void> {
    for (const row of this.cases.values()) {
      row.started.resolve(false);
      for (const step of row.steps.values()) step.resolve(undefined);
    }
    for (const w of this.workers) retitle(w, `${w.label} · ${w.cases} case${w.cases === 1 ? '' : 's'} done`);
    this.refreshProgress();
    this.runEnd.resolve();
    await this.running;
    const out = (line: string): void => void this.options.stream.write(`${line}\n`);
    for (const notice of this.notices) out(`${this.palette.cyan('notice')}: ${printable(notice)}`);
    const unused = unusedGoldensLine(result);
    if (unused) out(`${this.palette.cyan('notice')}: ${printable(unused)}`);
    const problems = await problemLines(result);
    if (problems.length > 0) {
      out('');
      out(this.palette.red('Failures:'));
      for (const line of problems) out(`  ${printable(line)}`);
    }
    if (this.imageFailed && this.options.names)
      out(`${this.palette.cyan('hint')}: ${printable(terminalImageHint(this.options.names.outputArg))}`);
    out('');
    for (const line of this.written.lines(result)) out(printable(line));
    out(verdictLine(this.palette, result));
  }

  private caseTask(info: CaseInfo): ListrTask {
    const row: CaseRow = {
      info,
      title: this.caseName(info),
      started: deferred(),
      steps: new Map(info.steps.map((s) => [s.index, deferred()])),
      stepRows: new Map(info.steps.map((s) => [s.index, { title: this.stepName(info, s) }])),
    };
    this.cases.set(key(info), row);
    return {
      title: row.title,
      task: async (_ctx, task) => {
        row.task = task;
        task.title = row.title;
        if (!(await row.started.promise)) {
          task.skip(`${this.caseName(info)} ${this.palette.dim('· not run')}`);
          return undefined;
        }
        return task.newListr(
          info.steps.map((s) => this.stepTask(row, s)),
          { concurrent: false, exitOnError: false },
        );
      },
    };
  }

  private stepTask(row: CaseRow, step: StepInfo): ListrTask {
    const label = this.stepName(row.info, step);
    // The live view shows a skip or error message in place of the title; the line view after it.
    const about = (text: string): string => (this.live ? `${label} ${this.palette.dim(`· ${text}`)}` : text);
    return {
      title: label,
      task: async (_ctx, task) => {
        const stepRow = row.stepRows.get(step.index);
        if (stepRow) {
          stepRow.task = task;
          task.title = stepRow.title;
        }
        const r = await row.steps.get(step.index)?.promise;
        if (!r) return task.skip(about('not run'));
        if (r.status === 'skipped') return task.skip(about(printable(r.skippedReason ?? 'skipped')));
        const tries = r.attempts.length > 1 ? `, ${r.attempts.length} attempts` : '';
        task.title = `${label} ${this.palette.dim(`· ${formatDuration(r.durationMs)}${tries}`)}`;
        if (r.status === 'failed' || r.status === 'error') {
          throw new Error(about(`${r.status}: ${printable(stepProblem(r) ?? r.status)} (${formatSpan(r.span)})`));
        }
        return undefined;
      },
    };
  }

  private cohortTasks(info: RunStartInfo): ListrTask[] {
    this.progress = new CohortProgress(info.cases.length, this.now());
    this.progressRow.title = this.progress.describe(this.now());
    const tasks: ListrTask[] = [
      {
        title: this.progressRow.title,
        task: async (_ctx, task) => {
          this.progressRow.task = task;
          task.title = this.progressRow.title;
          for (const line of this.progressRow.failures) task.output = line;
          await this.runEnd.promise;
        },
        rendererOptions: { outputBar: 5, persistentOutput: true },
      } as ListrTask,
    ];
    for (let i = 0; i < Math.max(1, info.workers); i++) {
      const label = `worker ${i + 1}`;
      const row: WorkerRow = { label, cases: 0, title: `${label} · ${this.palette.dim('starting')}` };
      this.workers.push(row);
      tasks.push({
        title: row.title,
        task: async (_ctx, task) => {
          row.task = task;
          task.title = row.title;
          await this.runEnd.promise;
        },
      });
    }
    return tasks;
  }

  /** Worker numbers are whatever the pool uses; rows are handed out in the order they appear. */
  private worker(n: number): WorkerRow | undefined {
    let row = this.workerOf.get(n);
    if (!row && this.workers.length > 0) {
      row = this.workers[this.workerOf.size % this.workers.length];
      if (row) this.workerOf.set(n, row);
    }
    return row;
  }

  private refreshProgress(): void {
    if (this.progress) retitle(this.progressRow, this.progress.describe(this.now()));
  }

  private stepName(c: CaseInfo, step: StepInfo): string {
    const label = printable(stepLabel(step));
    return this.live ? label : `${printable(c.name)} › ${label}`;
  }

  private caseName(c: { name: string }): string {
    return this.palette.bold(printable(c.name));
  }

  /** listr2's icons coloured by this reporter's palette, so NO_COLOR and the TTY decide, not listr2's import-time guess. */
  private colors(): Record<string, (text?: string) => string> {
    const p = this.palette;
    const c = (f: (t: string) => string) => (t?: string) => f(t ?? '');
    return {
      [ListrDefaultRendererLogLevels.COMPLETED]: c(p.green),
      [ListrDefaultRendererLogLevels.FAILED]: c(p.red),
      [ListrDefaultRendererLogLevels.COMPLETED_WITH_FAILED_SUBTASKS]: c(p.red),
      [ListrDefaultRendererLogLevels.FAILED_WITH_FAILED_SUBTASKS]: c(p.red),
      [ListrDefaultRendererLogLevels.COMPLETED_WITH_FAILED_SISTER_TASKS]: c(p.red),
      [ListrDefaultRendererLogLevels.SKIPPED_WITH_COLLAPSE]: c(p.yellow),
      [ListrDefaultRendererLogLevels.SKIPPED_WITHOUT_COLLAPSE]: c(p.yellow),
      [ListrDefaultRendererLogLevels.PENDING]: c(p.yellow),
      [ListrDefaultRendererLogLevels.RETRY]: c(p.yellow),
      [ListrDefaultRendererLogLevels.WAITING]: c(p.dim),
      [ListrLogLevels.STARTED]: c(p.yellow),
      [ListrLogLevels.SKIPPED]: c(p.yellow),
    };
  }
}

function key(c: { playbook: string; id: string }): string {
  return `${c.playbook}\u0000${c.id}`;
}

// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * listr2 draws through a ProcessOutput; this one writes to the reporter's stream, and drops
 * colour codes when colour is off, since parts of listr2 colour text on their own.
 * Its "stderr" is a private sink into the same stream: the display must not take over the
 * process's real stderr.
 */
function processOutput(stream: OutputStream, color: boolean): ProcessOutput {
  const write = (chunk: unknown): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    stream.write(color ? text : text.replace(SGR, ''));
    return true;
  };
  const out = { isTTY: stream.isTTY === true, columns: stream.columns ?? 100, rows: stream.rows ?? 40, write };
  const err = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      write(chunk);
      callback();
    },
  });
  return new ProcessOutput(out as unknown as NodeJS.WriteStream, err as unknown as NodeJS.WriteStream);
}
