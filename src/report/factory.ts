import { closest } from '../diagnostics/did-you-mean.js';
import type { RunResult } from '../result/result.js';
import { useColor } from './colors.js';
import { ReporterFanout } from './fan-out.js';
import { GithubReporter } from './github.js';
import { HtmlReporter, writeHtmlReport } from './html.js';
import { JsonReporter, writeJsonReport } from './json.js';
import { JunitReporter, writeJunitReport } from './junit.js';
import { LineReporter } from './line.js';
import { ReportNames, withNames } from './names.js';
import { ReportError } from './report-error.js';
import type { OutputStream, Reporter } from '../result/reporter.js';
import { TaskListReporter } from './tasklist.js';

export const REPORTER_NAMES = ['tasklist', 'line', 'json', 'junit', 'html', 'github'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

/** The report files, in the order `merge-reports` writes them. */
export const FILE_REPORTERS = ['json', 'junit', 'html'] as const satisfies readonly ReporterName[];

/** Reporters that go beside the console and the files: CI annotations. */
const EXTRA_REPORTERS: readonly ReporterName[] = ['github'];

export interface ReporterSetup {
  outputDir: string;
  /** Where console reporters write (usually `process.stdout`). */
  stream: OutputStream;
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** The project root that reports name files from (the configuration file's folder); default: the working folder. */
  root?: string;
}

/** Without `--reporter`: the live task list on a terminal, lines elsewhere, and the JSON and HTML files. */
export function defaultReporterNames(isTTY: boolean): ReporterName[] {
  return [isTTY ? 'tasklist' : 'line', 'json', 'html'];
}

/**
 * A named console reporter replaces the console default; named report files are added to the
 * default files, so report.json and report.html (which merge-reports and show-report read) are
 * always written. Quiet runs have no console reporter unless one is named.
 */
export function chooseReporters(named: readonly ReporterName[], isTTY: boolean, quiet = false): ReporterName[] {
  const isFile = (n: ReporterName): boolean => (FILE_REPORTERS as readonly string[]).includes(n);
  const isExtra = (n: ReporterName): boolean => EXTRA_REPORTERS.includes(n);
  const console = named.filter((n) => !isFile(n) && !isExtra(n));
  const defaults = defaultReporterNames(isTTY);
  const files = [...new Set([...defaults.filter(isFile), ...named.filter(isFile)])];
  return [
    ...(console.length > 0 ? console : quiet ? [] : defaults.filter((n) => !isFile(n))),
    ...named.filter(isExtra),
    ...files,
  ];
}

/**
 * Reads `--reporter` values: repeated options and comma-separated lists alike, duplicates
 * dropped. An unknown name is a usage error with a suggestion.
 */
export function parseReporterNames(values: readonly string[]): ReporterName[] {
  const names: ReporterName[] = [];
  for (const raw of values.flatMap((v) => v.split(','))) {
    const name = raw.trim();
    if (name === '') continue;
    if (!isReporterName(name)) {
      const guess = closest(name, REPORTER_NAMES);
      throw new ReportError(
        'UNKNOWN_REPORTER',
        `unknown reporter "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
        `choose from ${REPORTER_NAMES.join(', ')}; separate several with commas`,
      );
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

function isReporterName(name: string): name is ReporterName {
  return (REPORTER_NAMES as readonly string[]).includes(name);
}

/**
 * The reporters of `--reporter` (or the default set when none is given) behind one fan-out,
 * which the runner calls and the CLI asks for reporter failures afterwards.
 */
export function createReporters(names: readonly string[] | undefined, setup: ReporterSetup): ReporterFanout {
  const chosen = names && names.length > 0 ? parseReporterNames(names) : defaultReporterNames(setup.isTTY);
  const color = useColor(setup.isTTY, setup.env);
  const root = setup.root ?? process.cwd();
  const naming = new ReportNames(root, setup.outputDir);
  const reporters = chosen.map((name): Reporter => {
    switch (name) {
      case 'tasklist':
        // Some CI terminals are TTYs that report 0 columns: a live list there draws nothing
        // but cursor codes, so it falls back to lines.
        return setup.isTTY && setup.stream.columns === 0
          ? new LineReporter({ stream: setup.stream, color, names: naming })
          : new TaskListReporter({ stream: setup.stream, color, live: setup.isTTY, names: naming });
      case 'line':
        return new LineReporter({ stream: setup.stream, color, names: naming });
      case 'json':
        return new JsonReporter(setup.outputDir);
      case 'junit':
        return new JunitReporter(setup.outputDir, root);
      case 'html':
        return new HtmlReporter(setup.outputDir, root);
      case 'github':
        return new GithubReporter(setup.stream);
    }
  });
  // Every reporter sees the files of the run by the names that travel (names.ts).
  return new ReporterFanout(reporters.map((r) => withNames(r, naming)));
}

/**
 * Writes report files for a result that did not come from a live run (merged shards), whose
 * names are those of its reports already; returns their paths.
 */
export async function writeReportFiles(
  result: RunResult,
  outputDir: string,
  formats: readonly (typeof FILE_REPORTERS)[number][] = FILE_REPORTERS,
  root?: string,
): Promise<string[]> {
  const writers = { json: writeJsonReport, junit: writeJunitReport, html: writeHtmlReport };
  const paths: string[] = [];
  for (const format of formats) paths.push(await writers[format](result, outputDir, root));
  return paths;
}
