import type { Attempt, CaseInfo, CaseResult, RunResult, StepInfo, StepResult } from '../result/result.js';
import { createPalette, paintStatus, type Palette } from './colors.js';
import type { OutputStream, Reporter, RunStartInfo } from '../result/reporter.js';
import { isFailedImageCheck, terminalImageHint } from './hints.js';
import type { ReportNames } from './names.js';
import { WrittenFiles } from './written.js';
import {
  failureDetails,
  formatDuration,
  formatError,
  formatSpan,
  printable,
  problemLines,
  stepLabel,
  unusedGoldensLine,
  verdictLine,
} from './report-text.js';

export interface LineReporterOptions {
  stream: OutputStream;
  /** Decided by the caller from the stream and the environment (see `useColor`). */
  color?: boolean;
  /** How files are named: artefacts from the project root, the output folder in commands. */
  names?: ReportNames;
}

/**
 * One line per finished step, per retry and per finished case, then a summary: output that
 * reads well in a CI log or a pipe, where nothing can be redrawn. Lines of parallel cases
 * interleave, so each carries its case name.
 */
export class LineReporter implements Reporter {
  readonly name = 'line';
  private readonly stream: OutputStream;
  private readonly palette: Palette;
  private total = 0;
  /** Case keys finished so far; a case retried on another workbench counts once. */
  private readonly finished = new Set<string>();
  private readonly names: ReportNames | undefined;
  private readonly written: WrittenFiles;

  constructor(options: LineReporterOptions) {
    this.stream = options.stream;
    this.palette = createPalette(options.color ?? false);
    this.names = options.names;
    this.written = new WrittenFiles(options.names);
  }

  onRunStart(info: RunStartInfo): void {
    this.total = info.cases.length;
    const cases = `${info.cases.length} case${info.cases.length === 1 ? '' : 's'}`;
    const workers = `${info.workers} worker${info.workers === 1 ? '' : 's'}`;
    this.write(
      `Running ${cases} on ${printable(info.workbench)} with ${workers}; output in ${printable(info.outputDir)}`,
    );
  }

  onStepRetry(c: CaseInfo, step: StepInfo, attempt: Attempt, delayMs: number): void {
    const why = attempt.error ? formatError(attempt.error) : 'failed';
    this.write(
      `${this.prefix(c, step)} … ${this.palette.yellow(`attempt ${attempt.n} failed`)}: ${printable(why)}; retrying in ${formatDuration(delayMs)}`,
    );
  }

  onStepEnd(c: CaseInfo, result: StepResult): void {
    this.written.record(result);
    const p = this.palette;
    const tries = result.attempts.length > 1 ? `, ${result.attempts.length} attempts` : '';
    if (result.status === 'skipped') {
      const reason = result.skippedReason ? `: ${printable(result.skippedReason)}` : '';
      this.write(`${this.prefix(c, result)} … ${paintStatus(p, 'skipped')}${reason}`);
      return;
    }
    this.write(
      `${this.prefix(c, result)} … ${paintStatus(p, result.status)} (${formatDuration(result.durationMs)}${tries})`,
    );
    if (result.status === 'passed') return;
    const details = failureDetails(result);
    const hint =
      this.names && isFailedImageCheck(result.error) ? terminalImageHint(this.names.outputArg) : result.error?.hint;
    if (hint) details.push(`hint: ${hint}`);
    for (const artefact of result.artefacts) {
      if (artefact.kind === 'diff' || artefact.kind === 'actual')
        details.push(`${artefact.kind}: ${this.names ? this.names.artefactName(artefact) : artefact.path}`);
    }
    details.push(`at ${formatSpan(result.span)}`);
    for (const detail of details) this.write(indent(printable(detail), '    '));
  }

  onCaseEnd(result: CaseResult): void {
    this.finished.add(`${result.playbook}\u0000${result.id}`);
    const count = this.total > 0 ? this.palette.dim(` [${this.finished.size}/${this.total}]`) : '';
    const when = result.upToDate
      ? ` (up to date: its result is from ${printable(result.upToDate.finishedAt)})`
      : ` in ${formatDuration(result.durationMs)}`;
    this.write(
      `${this.palette.bold(printable(result.name))} ${paintStatus(this.palette, result.status)}${when}${count}`,
    );
  }

  onNotice(message: string): void {
    this.write(`${this.palette.cyan('notice')}: ${printable(message)}`);
  }

  async onRunEnd(result: RunResult): Promise<void> {
    const problems = await problemLines(result);
    if (problems.length > 0) {
      this.write('');
      this.write(this.palette.red('Failures:'));
      for (const line of problems) this.write(`  ${printable(line)}`);
    }
    const unused = unusedGoldensLine(result);
    if (unused) this.write(`${this.palette.cyan('notice')}: ${printable(unused)}`);
    this.write('');
    for (const line of this.written.lines(result)) this.write(printable(line));
    this.write(verdictLine(this.palette, result));
  }

  private prefix(c: CaseInfo, step: StepInfo): string {
    return `${printable(c.name)} › ${printable(stepLabel(step))}`;
  }

  private write(line: string): void {
    this.stream.write(`${line}\n`);
  }
}

/** Continuation lines of a multi-line message stay under their first line. */
function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => by + line)
    .join('\n');
}
