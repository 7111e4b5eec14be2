import type { CaseInfo, StepResult } from '../result/result.js';
import type { OutputStream, Reporter } from '../result/reporter.js';
import { stepLabel, stepProblem } from './report-text.js';

/**
 * GitHub Actions annotations: each failed or erred step becomes an `::error` workflow command at
 * its playbook line, so the pull request shows it beside the YAML. Written to the console stream
 * next to the console reporter, never instead of it.
 */
export class GithubReporter implements Reporter {
  readonly name = 'github';
  constructor(private readonly stream: OutputStream) {}

  onStepEnd(c: CaseInfo, step: StepResult): void {
    if (step.status !== 'failed' && step.status !== 'error') return;
    const title = `${c.name} › ${stepLabel(step)}`;
    const message = [stepProblem(step) ?? step.status, step.error?.hint ? `hint: ${step.error.hint}` : '']
      .filter(Boolean)
      .join('\n');
    const props = `file=${property(step.span.file)},line=${step.span.line},col=${step.span.col},title=${property(title)}`;
    this.stream.write(`::error ${props}::${data(message)}\n`);
  }
}

/** The escaping GitHub's runner undoes in a command's message. */
function data(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** The escaping of a command's property values, which also may not hold `:` or `,`. */
function property(text: string): string {
  return data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
