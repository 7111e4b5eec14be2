import { join } from 'node:path';
import { writeChunksAtomic } from '../files/atomic-write.js';
import type { CaseResult, CaseSummary, RunResult, StepResult } from '../result/result.js';
import type { Reporter } from '../result/reporter.js';
import { ReportNames } from './names.js';
import { firstProblem, formatDuration, failureDetails, formatSpan, stepLabel, stepProblem } from './report-text.js';

export const JUNIT_REPORT_FILE = 'junit.xml';

/**
 * JUnit XML as CI servers read it (the Ant / Jenkins `junit-4.xsd` shape): one testsuite per
 * playbook, one testcase per case with its steps as `system-out`. A failed assertion is a
 * `<failure>`, a step that could not run an `<error>`, a case that did not run `<skipped>`.
 * The counts come from the cases' summaries, so the cases themselves are read one at a time.
 */
export async function* junitChunks(result: RunResult, names?: ReportNames): AsyncIterable<string> {
  const summaries = result.cases.summaries;
  const suites = groupByPlaybook(summaries);
  const timestamp = xmlTimestamp(result.startedAt);
  const all = counts(summaries);
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `<testsuites ${attrs({ name: 'wbplay', tests: all.tests, failures: all.failures, errors: all.errors, skipped: all.skipped, time: seconds(result.durationMs), timestamp })}>\n`;
  let id = 0;
  for (const [playbook, positions] of suites) {
    const members = positions.map((i) => summaries[i] as CaseSummary);
    const c = counts(members);
    const time = seconds(members.reduce((sum, k) => sum + k.durationMs, 0));
    yield `  <testsuite ${attrs({ name: playbook, id: id++, tests: c.tests, failures: c.failures, errors: c.errors, skipped: c.skipped, time, timestamp })}>\n`;
    for (const line of properties(result, playbook)) yield `${line}\n`;
    for await (const k of result.cases.pick(positions))
      yield testcase(k, names)
        .map((line) => `${line}\n`)
        .join('');
    yield '  </testsuite>\n';
  }
  yield '</testsuites>\n';
}

export async function renderJunit(result: RunResult, names?: ReportNames): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of junitChunks(result, names)) chunks.push(chunk);
  return chunks.join('');
}

/** Writes `<out>/junit.xml`; attachments are named from the project root (`root`, else the working folder). */
export async function writeJunitReport(result: RunResult, outputDir: string, root?: string): Promise<string> {
  const path = join(outputDir, JUNIT_REPORT_FILE);
  await writeChunksAtomic(path, junitChunks(result, new ReportNames(root ?? process.cwd(), outputDir)));
  return path;
}

export class JunitReporter implements Reporter {
  readonly name = 'junit';
  constructor(
    private readonly outputDir: string,
    private readonly root?: string,
  ) {}

  async onRunEnd(result: RunResult): Promise<void> {
    await writeJunitReport(result, this.outputDir, this.root);
  }
}

function testcase(k: CaseResult, names: ReportNames | undefined): string[] {
  const open = `    <testcase ${attrs({ name: k.name, classname: k.playbook, time: seconds(k.durationMs) })}>`;
  const lines = [open];
  const problem = firstProblem(k);
  if (k.status === 'failed' || k.status === 'error') {
    const tag = k.status === 'failed' ? 'failure' : 'error';
    const message = problem ? (stepProblem(problem) ?? k.status) : k.status;
    const type = problem?.error?.code ?? (problem?.image ? `image-${problem.image.outcome}` : k.status);
    lines.push(
      `      <${tag} ${attrs({ message, type })}>${text(problem ? problemDetails(problem, names) : '')}</${tag}>`,
    );
  } else if (k.status === 'skipped') {
    const reason = k.steps.find((s) => s.skippedReason)?.skippedReason;
    lines.push(`      <skipped${reason ? ` ${attrs({ message: reason })}` : ''}/>`);
  }
  lines.push(`      <system-out>${text([...k.steps.map(stepLine), ...attachments(k, names)].join('\n'))}</system-out>`);
  lines.push('    </testcase>');
  return lines;
}

/**
 * The images of failed checks as attachment lines (`[[ATTACHMENT|path]]`), which Jenkins'
 * attachments plugin and GitLab show beside the test. CI servers look for them from the
 * project's folder, so they are named from the project root; without names, from the output
 * folder where junit.xml lies.
 */
function attachments(k: CaseResult, names: ReportNames | undefined): string[] {
  const shown = new Set(['expected', 'actual', 'diff']);
  return k.steps
    .filter((s) => s.status === 'failed' || s.status === 'error')
    .flatMap((s) => s.artefacts.filter((a) => shown.has(a.kind)))
    .map((a) => `[[ATTACHMENT|${names ? names.artefactName(a) : a.path}]]`);
}

/** What a person needs to find and fix the problem without opening the HTML report. */
function problemDetails(step: StepResult, names: ReportNames | undefined): string {
  const lines = [`${stepLabel(step)} at ${formatSpan(step.span)}`];
  lines.push(...failureDetails(step));
  if (step.error?.hint) lines.push(`hint: ${step.error.hint}`);
  for (const a of step.artefacts) lines.push(`${a.kind}: ${names ? names.artefactName(a) : a.path}`);
  return lines.join('\n');
}

function stepLine(step: StepResult): string {
  const tries = step.attempts.length > 1 ? `, ${step.attempts.length} attempts` : '';
  const time = step.status === 'skipped' ? '' : ` (${formatDuration(step.durationMs)}${tries})`;
  const head = `[${step.status}] ${stepLabel(step)}${time} at ${formatSpan(step.span)}`;
  const problem = stepProblem(step);
  return problem ? `${head}\n    ${problem}` : head;
}

function properties(result: RunResult, playbook: string): string[] {
  const p = result.provenance;
  const props: Array<[string, string | undefined]> = [
    ['playbook.sha256', p.playbooks.find((b) => b.path === playbook)?.sha256],
    ['workbench.name', p.workbench?.name],
    ['workbench.url', p.workbench?.url],
    ['workbench.engine_version', p.workbench?.engine_version],
    ['workbench.api_version', p.workbench?.api_version],
    ['wbplay', p.wbplay],
  ];
  const lines = props
    .filter(([, v]) => v !== undefined)
    .map(([name, value]) => `      <property ${attrs({ name, value: value ?? '' })}/>`);
  return lines.length > 0 ? ['    <properties>', ...lines, '    </properties>'] : [];
}

/** Playbooks in the order their first case appears, so the file follows the run; the positions of their cases. */
function groupByPlaybook(cases: readonly CaseSummary[]): Array<[string, number[]]> {
  const groups = new Map<string, number[]>();
  cases.forEach((k, i) => {
    const group = groups.get(k.playbook);
    if (group) group.push(i);
    else groups.set(k.playbook, [i]);
  });
  return [...groups];
}

function counts(cases: readonly CaseSummary[]): { tests: number; failures: number; errors: number; skipped: number } {
  return {
    tests: cases.length,
    failures: cases.filter((k) => k.status === 'failed').length,
    errors: cases.filter((k) => k.status === 'error').length,
    skipped: cases.filter((k) => k.status === 'skipped').length,
  };
}

/** JUnit times are seconds with a decimal point, never a locale's comma. */
function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** `xs:dateTime` without a zone, as the strictest JUnit schemas want it; the value is UTC. */
function xmlTimestamp(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '1970-01-01T00:00:00' : date.toISOString().slice(0, 19);
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}="${attribute(String(v))}"`)
    .join(' ');
}

/**
 * Characters XML 1.0 cannot carry at all, not even as references: C0 controls other than tab,
 * newline and carriage return, U+FFFE/U+FFFF and unpaired surrogates. They are shown as
 * `\uXXXX` so the message survives and the file stays well-formed.
 */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function visible(value: string): string {
  return value.replace(NOT_XML, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function text(value: string): string {
  // A bare carriage return would be folded into a newline by every parser.
  return visible(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Attribute values also keep their line breaks and tabs, which a parser would otherwise turn into spaces. */
function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}
