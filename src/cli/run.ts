import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { Option } from 'commander';
import type { GoldenTemplate } from '../compare/golden-template.js';
import type { Plan } from '../compile/plan.js';
import type { Config } from './config.js';
import type { ArchiveAccess } from './archives.js';
import type { RunResult } from '../result/result.js';
import type { RetryPolicy } from '../run/retry.js';
import type { ForeignNodeMode } from '../run/run-context.js';
import type { RunHooks } from './watch.js';
import type { FolderLock } from '../files/folder-lock.js';
import type { ReporterFailure } from '../report/fan-out.js';
import type { WorkbenchSource, WorkbenchUrls } from '../run/workbenches.js';
import { collect, commandLine, wholeNumber, type RegisterCommand } from './command.js';
import { CommandError, describeError, EXIT, reportError, type ExitCode } from './errors.js';

export interface RunCliOptions {
  url: string[];
  tokenEnv?: string;
  allowInsecureToken?: boolean;
  launch?: boolean;
  workers?: string;
  var: string[];
  out?: string;
  reporter: string[];
  updateGoldens?: string | true;
  grep?: string;
  tag: string[];
  retries?: string;
  timeout?: string;
  requestTimeout?: string;
  trace?: boolean;
  watch?: boolean;
  failFast?: boolean;
  maxFailures?: string;
  quiet?: boolean;
  force?: boolean;
  shard?: string;
  project?: string;
  foreignNodes?: ForeignNodeMode;
  /** Where the token variable's name came from, for messages. */
  tokenEnvSource?: string;
  /** Where goldens live, from the configuration. */
  goldenTemplate?: GoldenTemplate;
}

const UPDATE_MODES = ['none', 'missing', 'changed', 'all'] as const;

const HELP_AFTER = `
Workbench: --url, else the configuration's url, else the playbook's workbench.url, else
WORKBENCH_URL; with none of them the embedded reference workbench runs in this process for the
duration of the run.

Configuration: wbplay.config.yaml in this folder or the nearest one above it sets defaults for
every option (schemas/config.schema.json); the command line overrides each. --project NAME uses
one of its named projects over them.

Output: reports (report.json, report.html, and junit.xml with --reporter junit) and the
artefacts of failed image assertions go to --out (default: the folder the playbook's own
\`out\` variable names, else wbplay-out/). --out also sets the playbook variable \`out\`, so
screenshots and figures saved under \${out} land there too. A run ends by naming the goldens,
figures, contact sheets and screenshots it wrote, and its report.

Output folder: a run holds it (wbplay.lock) while it lasts; a second run into it exits 2.

Workbench scene: on a workbench given by URL, the nodes earlier wbplay runs left (they carry
the node property wbplay.marker) are removed first; nodes wbplay did not make are hidden for
the run and shown again at its end (--foreign-nodes).

Exit codes: 0 every case passed (or was up to date), 1 a case failed or erred,
2 invalid playbook or usage, or the output folder is in use, 3 a report, trace, journal or
figure of the run could not be written, 130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM
(reports hold what ran).`;

/** `wbplay run`: compile the playbooks, run them against the chosen workbenches, report. */
export const registerRun: RegisterCommand = (program, setExitCode) => {
  program
    .command('run')
    .description('run playbooks against a workbench: figures, golden-image assertions and reports')
    .argument('<playbook...>', 'playbook files, folders of playbooks, or quoted globs')
    .option('--url <url>', 'workbench URL (repeat for one workbench per worker)', collect, [])
    .option('--token-env <name>', 'environment variable holding the workbench API token')
    .option('--allow-insecure-token', 'send the token over plain http:// to a host that is not loopback')
    .option('--launch', 'start the workbench (MITK_WORKBENCH) for the run, one per worker')
    .option('--workers <n>', 'cases run at once, each on its own workbench (default: 1, or one per --url)')
    .option('--var <name=value>', "set a variable, overriding the playbook's vars (repeatable)", collect, [])
    .option(
      '--out <dir>',
      "output folder for reports, resume journal and artefacts (default: the playbook's `out` variable, else wbplay-out)",
    )
    .option(
      '--reporter <names>',
      'tasklist, line, json, junit, html, github; comma-separated or repeated (the console gets tasklist on a terminal, else line, unless one is named; json and html are always written, junit when named; github adds Actions annotations)',
      collect,
      [],
    )
    .addOption(
      new Option(
        '-u, --update-goldens [mode]',
        'which goldens may be written: none, missing, changed (the bare flag, anywhere on the line), all; without it a missing golden is written, except in CI (CI set) where it fails',
      ).choices(UPDATE_MODES),
    )
    .option('--grep <regex>', 'run only cases whose name matches')
    .option(
      '--tag <tag>',
      'run only playbooks with this tag (repeatable: any of them); !TAG leaves out those with TAG',
      collect,
      [],
    )
    .option('--retries <n>', 'retries of a step after a transient error (default 3)')
    .option('--timeout <ms>', 'time limit per step, retries included (default 120000)')
    .option(
      '--request-timeout <ms>',
      "time limit per HTTP exchange, headers and body; a stalled exchange is abandoned and retried within the step's time (default 30000)",
    )
    .option(
      '--watch',
      'run again whenever a playbook, an included file or a data file changes, on the same workbench from a clean scene; say which figures changed',
    )
    .option(
      '--trace',
      "write each case's HTTP exchanges (method, path, status, duration, attempt; never a header or token) to trace.jsonl beside its artefacts",
    )
    .option('--fail-fast', 'stop starting new cases after the first failure')
    .option('--max-failures <n>', 'stop starting new cases after n failed cases')
    .option('--quiet', 'no progress output; failures and the summary only')
    .option('--force', 'run cohort studies again even when the resume journal says they are up to date')
    .addOption(
      new Option(
        '--foreign-nodes <mode>',
        "nodes on a workbench given by URL that wbplay did not make (a person's data): keep them, hide them for the run and show them again at its end, or remove them (default hide); nodes earlier wbplay runs left are always removed",
      ).choices(['keep', 'hide', 'remove'] satisfies ForeignNodeMode[]),
    )
    .option('--project <name>', 'use the named project of wbplay.config.yaml over its other settings')
    .option(
      '--shard <i/n>',
      'run shard i of n of the cases (1-based); env:JOB_COMPLETION_INDEX/n reads i from the environment, slurm from the task of a Slurm job array',
    )
    .addHelpText('after', HELP_AFTER)
    .action(async (files: string[], opts: RunCliOptions) => {
      setExitCode(await runCommand(files, opts));
    });
};

async function runCommand(files: string[], opts: RunCliOptions): Promise<ExitCode> {
  try {
    return await (opts.watch ? watchCommand(files, opts) : runChecked(files, opts));
  } catch (err) {
    // Whatever stops a run before it starts (options, shard, reporters) is the user's to change.
    return reportError(err, { code: 'BAD_OPTION', exitCode: EXIT.usage });
  }
}

/** `--watch`: the same run again on each change, on one workbench kept for the session. */
async function watchCommand(files: string[], opts: RunCliOptions): Promise<ExitCode> {
  if (opts.launch || opts.url.length > 1 || (opts.workers !== undefined && opts.workers !== '1')) {
    throw new CommandError(
      'BAD_OPTION',
      '--watch runs on one workbench',
      'give at most one --url (or none for the embedded reference workbench), and no --launch or --workers',
    );
  }
  const [{ watchRuns }, { expandPlaybookArgs }] = await Promise.all([
    import('./watch.js'),
    import('./playbook-args.js'),
  ]);
  const given = opts.url[0] ?? process.env.WORKBENCH_URL;
  return watchRuns({
    playbooks: expandPlaybookArgs(files),
    async workbench() {
      if (given !== undefined) return { url: given, stop: async () => undefined };
      // One reference workbench for the whole session, so every run draws on the same one.
      const ref = await (await import('../sim/server.js')).startReferenceWorkbench();
      process.stderr.write(
        `wbplay: no workbench URL given: watching on an embedded reference workbench at ${ref.url}\n`,
      );
      return { url: ref.url, stop: () => ref.stop() };
    },
    runOnce: (url, hooks) => runChecked(files, { ...opts, url: [url], watch: false }, hooks),
    log: (line) => process.stdout.write(`wbplay: ${line}\n`),
  });
}

async function runChecked(files: string[], cliOpts: RunCliOptions, hooks?: RunHooks): Promise<ExitCode> {
  const [{ DEFAULT_RETRY }, { loadConfig }] = await Promise.all([import('../run/retry.js'), import('./config.js')]);
  const config = await loadConfig(cliOpts.project);
  const opts = config ? withConfig(cliOpts, config) : cliOpts;
  const settings = readSettings(opts, DEFAULT_RETRY);
  const vars = opts.out !== undefined ? ['out=' + resolve(opts.out), ...opts.var] : opts.var;
  const { expandPlaybookArgs, selectPlaybooks } = await import('./playbook-args.js');
  const grep = grepOption(opts.grep);
  const chosen = selectPlaybooks(expandPlaybookArgs(files), opts.tag, grep);
  if (chosen.length === 0)
    throw new CommandError(
      'NO_CASES',
      'no case matches --grep/--tag',
      "check the case names (wbplay plan lists them) and the playbooks' tags",
    );
  const { ArchiveAccess } = await import('./archives.js');
  const archives = new ArchiveAccess(config, {
    retry: settings.retry ?? DEFAULT_RETRY,
    ...(opts.allowInsecureToken === true ? { allowInsecure: true } : {}),
    ...(settings.requestTimeoutMs !== undefined ? { timeoutMs: settings.requestTimeoutMs } : {}),
  });
  try {
    return await runCompiled(chosen, vars, opts, settings, grep, archives, hooks);
  } finally {
    await archives.close();
  }
}

async function runCompiled(
  chosen: string[],
  vars: string[],
  opts: RunCliOptions,
  settings: Settings,
  grep: RegExp | undefined,
  archives: ArchiveAccess,
  hooks: RunHooks | undefined,
): Promise<ExitCode> {
  const { compileAll, DEFAULT_OUT } = await import('./compile-input.js');
  if (opts.trace === true) archives.traceTo(join(resolve(opts.out ?? DEFAULT_OUT), 'dicomweb-trace.jsonl'));
  let compiled: Plan[] | undefined;
  try {
    compiled = await compileAll(chosen, vars, { archives });
  } catch (err) {
    // An archive that cannot be searched: the run cannot start, as with an unreachable workbench.
    return reportError(err, { code: 'RUN_FAILED', exitCode: EXIT.failed });
  }
  if (!compiled) return EXIT.usage;
  const { tagsMatch } = await import('./playbook-args.js');
  const plans = filterCases(compiled, opts.tag, grep, tagsMatch);
  hooks?.onPlans(plans);
  if (plans.every((p) => p.cases.length === 0))
    throw new CommandError(
      'NO_CASES',
      'no case matches --grep/--tag',
      "check the case names (wbplay plan lists them) and the playbooks' tags",
    );

  const outputDir = resolve(opts.out ?? playbookOut(plans) ?? DEFAULT_OUT);
  const lock = await takeOutputFolder(outputDir);
  try {
    return await runLocked(plans, opts, settings, outputDir, lock, hooks, archives);
  } finally {
    await lock.release();
  }
}

/**
 * Without `--out`, the folder the playbooks' `${out}` names, when they agree on one: a playbook
 * that keeps its files in a folder of its own gets its reports there too, so they lie with the
 * figures they describe and its run never replaces another playbook's report.
 */
export function playbookOut(plans: readonly Pick<Plan, 'playbook' | 'vars'>[]): string | undefined {
  const outs = new Set(
    plans.map((p) => {
      const out = p.vars.out;
      return typeof out === 'string' && out !== '' ? resolve(dirname(p.playbook.path), out) : undefined;
    }),
  );
  const [only] = outs;
  return outs.size === 1 ? only : undefined;
}

/** The run proper, once it holds its output folder. */
async function runLocked(
  plans: readonly Plan[],
  opts: RunCliOptions,
  settings: Settings,
  outputDir: string,
  lock: FolderLock,
  hooks: RunHooks | undefined,
  archives: ArchiveAccess,
): Promise<ExitCode> {
  const choice = workbenchChoice(plans, opts, settings.workers);
  if (choice.kind === 'embedded' && !opts.quiet) {
    process.stderr.write(
      `wbplay: no workbench URL given (--url, the playbook's workbench.url or WORKBENCH_URL): running on the embedded reference workbench${choice.count > 1 ? ` ×${choice.count}` : ''}\n`,
    );
  }

  const [
    { runPlans },
    { chooseReporters, createReporters, parseReporterNames },
    { parseShard },
    { projectRoot },
    source,
  ] = await Promise.all([
    import('../run/runner.js'),
    import('../report/factory.js'),
    import('../run/shard.js'),
    import('./config.js'),
    workbenchSource(choice),
  ]);
  const shard = opts.shard !== undefined ? parseShard(opts.shard) : undefined;
  const isTTY = process.stdout.isTTY === true;
  const reporters = createReporters(chooseReporters(parseReporterNames(opts.reporter), isTTY, opts.quiet === true), {
    outputDir,
    stream: process.stdout,
    isTTY,
    env: process.env,
    root: projectRoot(),
  });

  const ci = isCi(process.env);
  const stop = stopOnSignals(lock);
  try {
    const result = await runPlans({
      plans,
      workbenches: source,
      reporter: reporters,
      outputDir,
      retry: settings.retry,
      timeoutMs: settings.timeoutMs,
      ...(settings.requestTimeoutMs !== undefined ? { requestTimeoutMs: settings.requestTimeoutMs } : {}),
      trace: opts.trace === true,
      // Only a run of every case can tell an obsolete golden from one another case uses.
      listUnusedGoldens: opts.grep === undefined && opts.tag.length === 0 && opts.shard === undefined,
      ...(settings.maxFailures !== undefined ? { maxFailures: settings.maxFailures } : {}),
      failFast: opts.failFast === true,
      golden: {
        update: settings.update ?? (ci ? 'none' : 'missing'),
        ci,
        ...(opts.goldenTemplate ? { template: opts.goldenTemplate } : {}),
      },
      force: opts.force === true,
      ...(opts.foreignNodes !== undefined ? { foreignNodes: opts.foreignNodes } : {}),
      ...(shard ? { shard } : {}),
      // Made whatever the plans hold: a case compiled as it runs may store into an archive.
      archives: await archives.open(),
      prefetch: archives.prefetch,
      signal: stop.signal,
    });
    hooks?.onResult(result, outputDir);
    if (opts.quiet) process.stderr.write(await quietSummary(result));
    const lost = recordGaps(result, reporters.failures);
    const shown = await reportShown(outputDir, reporters.failures);
    // Quiet runs keep stdout empty: the line goes with their summary.
    if (shown) (opts.quiet ? process.stderr : process.stdout).write(`Report: ${shownPath(shown)}\n`);
    return runExitCode(result, lost, stop.signal.aborted ? stop.exitCode() : undefined);
  } catch (err) {
    if (stop.signal.aborted) {
      reportError(err, { code: 'RUN_FAILED' });
      return stop.exitCode();
    }
    return runFailure(err);
  } finally {
    stop.dispose();
  }
}

/**
 * The run's hold on its output folder (each run of a watch session takes it anew); a folder
 * another live run holds ends this one at once, with exit 2.
 */
async function takeOutputFolder(outputDir: string): Promise<FolderLock> {
  const { FolderLock } = await import('../files/folder-lock.js');
  return FolderLock.take(outputDir, commandLine(), {
    notice: (message) => process.stderr.write(`wbplay: ${message}\n`),
  });
}

/**
 * SIGINT and SIGTERM stop a run the same orderly way: the current steps are aborted, the rest
 * skipped, workbenches stopped, reports and journal written with what ran. The exit code says
 * which signal it was (130, 143). A second signal ends the process at once, releasing the
 * output folder on the way out.
 */
function stopOnSignals(lock: FolderLock): {
  signal: AbortSignal;
  exitCode(): ExitCode;
  dispose(): void;
} {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const codeOf = (sig: NodeJS.Signals): ExitCode => (sig === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted);
  const on = (sig: NodeJS.Signals) => (): void => {
    if (received !== undefined) {
      lock.releaseSync();
      process.exit(codeOf(sig));
    }
    received = sig;
    process.stderr.write(
      `\nwbplay: ${sig}: stopping (the current steps end, reports are written); send it again to quit at once\n`,
    );
    controller.abort(
      Object.assign(new Error(`the run was interrupted (${sig})`), { code: 'INTERRUPTED', signal: sig }),
    );
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    exitCode: () => codeOf(received ?? 'SIGINT'),
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/**
 * What a run that ended exits with: the signal's code when one stopped it; 3 when anything of
 * its record is missing (a report, a trace, the journal, a console reporter that broke), since
 * the evidence itself is incomplete; else 1 when a case failed or erred, 0 when none did.
 */
export function runExitCode(result: RunResult, lost: boolean, interrupted: ExitCode | undefined): ExitCode {
  if (interrupted !== undefined) return interrupted;
  if (lost) return EXIT.incomplete;
  return result.status === 'passed' || result.status === 'skipped' ? EXIT.ok : EXIT.failed;
}

/**
 * Says which files of the run's record are missing and why: a reporter that failed (a report
 * that could not be written names its file), and the trace, journal or spool writes the runner
 * could not make. True when anything is missing: the run then cannot exit 0.
 */
export function recordGaps(result: RunResult, failures: readonly ReporterFailure[]): boolean {
  for (const failure of failures) {
    reportError(
      new CommandError(
        'REPORTER_FAILED',
        `the ${failure.reporter} reporter failed in ${failure.event}: ${failure.message}`,
        'its output is missing; the exit code is 3 (incomplete)',
      ),
    );
  }
  for (const gap of result.unwritten ?? []) {
    reportError(
      new CommandError('NOT_WRITTEN', gap.message.includes(gap.path) ? gap.message : `${gap.path}: ${gap.message}`),
    );
  }
  return failures.length > 0 || (result.unwritten?.length ?? 0) > 0;
}

/**
 * The report a person should open: report.html if this run wrote it, else report.json, else
 * none. A file whose reporter failed is an earlier run's, never named as this one's.
 */
async function reportShown(outputDir: string, failures: readonly ReporterFailure[]): Promise<string | undefined> {
  const { stat } = await import('node:fs/promises');
  for (const name of ['html', 'json']) {
    if (failures.some((f) => f.reporter === name)) continue;
    const path = join(outputDir, `report.${name}`);
    if (
      await stat(path).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return path;
  }
  return undefined;
}

/** Why `runPlans` threw: a refused token is the user's to fix; anything else ends the run as failed. */
function runFailure(err: unknown): ExitCode {
  if (describeError(err, 'RUN_FAILED').code === 'INSECURE_TOKEN') {
    return reportError(
      new CommandError(
        'INSECURE_TOKEN',
        'refusing to send the API token in cleartext over http:// to a host that is not loopback',
        'use https://, or pass --allow-insecure-token if the network is trusted',
      ),
    );
  }
  return reportError(err, { code: 'RUN_FAILED', exitCode: EXIT.failed });
}

interface Settings {
  workers?: number;
  retry?: RetryPolicy;
  timeoutMs?: number;
  requestTimeoutMs?: number;
  maxFailures?: number;
  /** Absent: missing goldens are written, except in CI where they fail. */
  update?: (typeof UPDATE_MODES)[number];
}

export function readSettings(opts: RunCliOptions, defaultRetry: RetryPolicy): Settings {
  const settings: Settings = {};
  if (opts.updateGoldens !== undefined)
    settings.update = opts.updateGoldens === true ? 'changed' : (opts.updateGoldens as Settings['update'] & string);
  if (opts.workers !== undefined) settings.workers = whole('--workers', opts.workers, 1);
  if (opts.retries !== undefined) settings.retry = { ...defaultRetry, retries: whole('--retries', opts.retries, 0) };
  if (opts.timeout !== undefined) settings.timeoutMs = whole('--timeout', opts.timeout, 1);
  if (opts.maxFailures !== undefined) settings.maxFailures = whole('--max-failures', opts.maxFailures, 1);
  if (opts.requestTimeout !== undefined) settings.requestTimeoutMs = whole('--request-timeout', opts.requestTimeout, 1);
  if (opts.launch && opts.url.length > 0)
    throw new CommandError('BAD_OPTION', '--launch starts its own workbenches: leave out --url');
  if (opts.launch && !process.env.MITK_WORKBENCH)
    throw new CommandError(
      'BAD_OPTION',
      '--launch needs the workbench program: MITK_WORKBENCH is not set',
      'set MITK_WORKBENCH to the path of MitkWorkbench (or of the script that starts it)',
    );
  for (const url of opts.url) checkUrl(url, '--url');
  if (opts.url.length === 0 && process.env.WORKBENCH_URL) checkUrl(process.env.WORKBENCH_URL, 'WORKBENCH_URL');
  return settings;
}

/** A workbench URL is an http(s) root; `localhost:8080` and the like get the URL they meant. */
function checkUrl(value: string, where: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return;
  const hostPort = /^[A-Za-z0-9.-]+:\d+(\/.*)?$/.test(value) || /^[A-Za-z0-9.-]+$/.test(value);
  throw new CommandError(
    'BAD_OPTION',
    `${where}: '${value}' is not an http:// or https:// URL`,
    hostPort ? `did you mean http://${value}?` : 'give the workbench root, such as http://localhost:8080',
  );
}

function whole(name: string, value: string, min: number): number {
  const n = wholeNumber(value);
  if (n === undefined || n < min)
    throw new CommandError('BAD_OPTION', `${name} must be a whole number of at least ${min}, got '${value}'`);
  return n;
}

/**
 * The options with the configuration's settings where the command line gave none. Paths in the
 * file were made absolute from the file's folder when it was read.
 */
export function withConfig(opts: RunCliOptions, config: Config): RunCliOptions {
  const c = config.settings;
  const shown = (n: number | undefined): string | undefined => (n === undefined ? undefined : String(n));
  const merged: RunCliOptions = { ...opts };
  if (opts.url.length === 0 && c.url !== undefined && !opts.launch) merged.url = Array.isArray(c.url) ? c.url : [c.url];
  if (opts.tokenEnv === undefined && c.token_env !== undefined) {
    merged.tokenEnv = c.token_env;
    merged.tokenEnvSource = `token_env of ${relative(process.cwd(), config.file) || config.file}`;
  }
  if (opts.reporter.length === 0 && c.reporters !== undefined) merged.reporter = c.reporters;
  merged.var = [...Object.entries(c.vars ?? {}).map(([k, v]) => `${k}=${String(v)}`), ...opts.var];
  const fill = <
    K extends 'workers' | 'out' | 'retries' | 'timeout' | 'requestTimeout' | 'updateGoldens' | 'foreignNodes',
  >(
    key: K,
    value: RunCliOptions[K] | undefined,
  ): void => {
    if (opts[key] === undefined && value !== undefined) merged[key] = value;
  };
  fill('workers', shown(c.workers));
  fill('out', c.out);
  fill('retries', shown(c.retries));
  fill('timeout', shown(c.timeout));
  fill('requestTimeout', shown(c.request_timeout));
  fill('updateGoldens', c.update_goldens);
  fill('foreignNodes', c.foreign_nodes);
  if (c.goldens !== undefined)
    merged.goldenTemplate = { pattern: c.goldens, base: dirname(config.file), project: config.project ?? 'default' };
  return merged;
}

/** The workbenches of a run: running ones at URLs, or ones wbplay starts for the run. */
type WorkbenchChoice = { kind: 'urls'; urls: WorkbenchUrls } | { kind: 'embedded' | 'launch'; count: number };

/** `--url`, else the first playbook's `workbench.url`, else WORKBENCH_URL, else embedded. */
function workbenchChoice(plans: readonly Plan[], opts: RunCliOptions, workers: number | undefined): WorkbenchChoice {
  if (opts.launch) return { kind: 'launch', count: workers ?? 1 };
  const fromPlan = plans.find((p) => p.workbench.url)?.workbench.url;
  const urls =
    opts.url.length > 0
      ? opts.url
      : fromPlan
        ? [fromPlan]
        : process.env.WORKBENCH_URL
          ? [process.env.WORKBENCH_URL]
          : [];
  if (urls.length === 0) return { kind: 'embedded', count: workers ?? 1 };
  if (workers !== undefined && workers !== urls.length) {
    throw new CommandError(
      'BAD_OPTION',
      `--workers ${workers} needs ${workers} workbenches, one per worker (a workbench shows one scene at a time)`,
      `give --url ${workers} times, or --launch`,
    );
  }
  const token = tokenFor(plans, opts);
  return {
    kind: 'urls',
    urls: {
      urls,
      ...(token !== undefined ? { token: token.token, tokenSource: token.source } : {}),
      ...(opts.allowInsecureToken ? { allowInsecureToken: true } : {}),
    },
  };
}

/** The simulator is loaded only when the run uses it. */
async function workbenchSource(choice: WorkbenchChoice): Promise<WorkbenchSource> {
  if (choice.kind === 'urls') return choice.urls;
  if (choice.kind === 'launch') return (await import('../run/workbenches.js')).launchedWorkbenches(choice.count);
  return (await import('../sim/embedded.js')).embeddedWorkbenches(choice.count);
}

/** The default token variable, read when neither --token-env nor the playbook names one. */
const DEFAULT_TOKEN_ENV = 'WORKBENCH_TOKEN';

/** The token and where it came from (for messages; never the token itself). */
export function tokenFor(plans: readonly Plan[], opts: RunCliOptions): { token: string; source: string } | undefined {
  const fromPlan = plans.find((p) => p.workbench.token)?.workbench.token;
  const planEnv = fromPlan && 'env' in fromPlan ? fromPlan.env : undefined;
  if (opts.tokenEnv === undefined && planEnv === undefined) {
    if (fromPlan)
      throw new CommandError(
        'TOKEN_IN_PLAYBOOK',
        'the playbook holds the API token itself',
        'keep tokens out of files: write `token: ${env.NAME}` and set NAME, or pass --token-env NAME',
      );
    const token = process.env[DEFAULT_TOKEN_ENV];
    return token ? { token, source: `the environment variable ${DEFAULT_TOKEN_ENV} (the default)` } : undefined;
  }
  const name = (opts.tokenEnv ?? planEnv)!;
  const source =
    opts.tokenEnv !== undefined
      ? `the environment variable ${name} (${opts.tokenEnvSource ?? '--token-env'})`
      : `the environment variable ${name} (the playbook's workbench.token)`;
  const token = process.env[name];
  if (token === undefined || token === '')
    throw new CommandError(
      'TOKEN_NOT_SET',
      `the token's environment variable ${name} is not set`,
      `set ${name} to the workbench's API token, or name another variable with --token-env`,
    );
  return { token, source };
}

function grepOption(source: string | undefined): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(source);
  } catch (err) {
    throw new CommandError('BAD_OPTION', `--grep: ${(err as Error).message}`);
  }
}

/** `--grep` over case names (`<playbook> <case>`), `--tag` over playbook tags. */
function filterCases(
  plans: readonly Plan[],
  tags: readonly string[],
  grep: RegExp | undefined,
  tagsMatch: (own: readonly string[], tags: readonly string[]) => boolean,
): Plan[] {
  return plans
    .filter((p) => tagsMatch(p.tags, tags))
    .map((p) => (grep ? { ...p, cases: p.cases.filter((c) => grep.test(`${p.name} ${c.name}`)) } : p));
}

/** A path as a user in this folder would type it. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** `CI` as CI services set it; `CI=false` or `CI=0` turn it off. */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI;
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

/** The cases that went wrong, then the verdict line every reporter ends with (PASSED, INTERRUPTED by …). */
async function quietSummary(result: RunResult): Promise<string> {
  const [{ verdictLine }, { createPalette, useColor }] = await Promise.all([
    import('../report/report-text.js'),
    import('../report/colors.js'),
  ]);
  const bad = result.cases.summaries
    .filter((c) => c.status === 'failed' || c.status === 'error')
    .map((c) => `  ${c.status}: ${c.name}\n`);
  return `${bad.join('')}${verdictLine(createPalette(useColor(process.stderr)), result)}\n`;
}
