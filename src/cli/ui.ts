import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Plan } from '../compile/index.js';
import type { RunCliOptions } from './run.js';
import { collect, commandLine, wholeNumber, type RegisterCommand } from './command.js';
import { CommandError, EXIT, reportError, type ExitCode } from './errors.js';

interface UiCliOptions {
  url?: string;
  tokenEnv?: string;
  allowInsecureToken?: boolean;
  var: string[];
  out?: string;
  project?: string;
  host: string;
  port?: string;
  open: boolean;
}

const HELP_AFTER = `
The page runs the playbooks at once and again whenever a playbook, an included file or a data
file they read changes (or when it asks), on one workbench from a clean scene each time, as
\`wbplay run --watch\` does. It shows each case's steps live, every screenshot and figure with
what changed since the run before (side by side, slider, blink), image checks against their
goldens with an Accept button, playbook errors in place of the images, and, with step
snapshots on, every window after each step.

Workbench: --url, else the configuration's url, else the playbook's workbench.url, else
WORKBENCH_URL; with none of them a reference workbench runs in this process.

The page is served on loopback and answers only itself: the same Host and Origin, and a token
it was served with. It loads files of the output folder only, and accepts a golden only for a
failed check of the runs it shows. Ctrl-C stops it (exit code 130).`;

/** `wbplay ui`: a live authoring page for playbooks. */
export const registerUi: RegisterCommand = (program, setExitCode) => {
  program
    .command('ui')
    .description(
      'a live page that runs the playbooks on every save: steps as they run, captures and what changed, step snapshots, golden review',
    )
    .argument('[playbook...]', 'playbook files, folders of playbooks, or quoted globs (default: playbooks)')
    .option('--url <url>', 'workbench URL (default: an embedded reference workbench)')
    .option('--token-env <name>', 'environment variable holding the workbench API token')
    .option('--allow-insecure-token', 'send the token over plain http:// to a host that is not loopback')
    .option('--var <name=value>', "set a variable, overriding the playbook's vars (repeatable)", collect, [])
    .option('--out <dir>', 'output folder for reports and the captures the page shows (default wbplay-out)')
    .option('--project <name>', 'use the named project of wbplay.config.yaml over its other settings')
    .option('--host <host>', 'address the page is served on', '127.0.0.1')
    .option('--port <port>', 'port of the page (default: a free one)')
    .option('--no-open', 'do not open a browser')
    .addHelpText('after', HELP_AFTER)
    .action(async (files: string[], opts: UiCliOptions) => {
      try {
        setExitCode(await uiCommand(files, opts));
      } catch (err) {
        setExitCode(reportError(err, { code: 'BAD_OPTION', exitCode: EXIT.usage }));
      }
    });
};

async function uiCommand(files: string[], cli: UiCliOptions): Promise<ExitCode> {
  const port = cli.port === undefined ? 0 : wholeNumber(cli.port);
  if (port === undefined || port > 65535)
    throw new CommandError('BAD_OPTION', `--port must be a port number, got '${cli.port ?? ''}'`);
  if (files.length === 0 && !existsSync('playbooks'))
    throw new CommandError(
      'BAD_OPTION',
      'no playbook given, and there is no playbooks folder here',
      'name a playbook: wbplay ui figure.yaml',
    );
  const [{ loadConfig }, run, { DEFAULT_RETRY }, { expandPlaybookArgs }] = await Promise.all([
    import('./config.js'),
    import('./run.js'),
    import('../run/retry.js'),
    import('./playbook-args.js'),
  ]);
  const asRun: RunCliOptions = {
    url: cli.url !== undefined ? [cli.url] : [],
    var: cli.var,
    reporter: [],
    tag: [],
    ...(cli.tokenEnv !== undefined ? { tokenEnv: cli.tokenEnv } : {}),
    ...(cli.allowInsecureToken ? { allowInsecureToken: true } : {}),
    ...(cli.out !== undefined ? { out: cli.out } : {}),
  };
  // The configuration applies as it does to `wbplay run`: above all its goldens, so a check
  // here compares with (and accepts into) the files a run would.
  const config = await loadConfig(cli.project);
  const opts = config ? run.withConfig(asRun, config) : asRun;
  const settings = run.readSettings(opts, DEFAULT_RETRY);
  if (opts.url.length > 1)
    throw new CommandError(
      'BAD_OPTION',
      'wbplay ui runs on one workbench',
      'give one --url, or one url in the configuration',
    );
  const [{ UiSession }, { parseVarAssignments }, { renderDiagnostics }, { useColor }] = await Promise.all([
    import('./ui-session.js'),
    import('../compile/index.js'),
    import('../diagnostics/render.js'),
    import('../report/colors.js'),
  ]);
  const parsed = parseVarAssignments(opts.out !== undefined ? ['out=' + resolve(opts.out), ...opts.var] : opts.var);
  if (parsed.diagnostics.length > 0) {
    const color = useColor(process.stderr);
    process.stderr.write(renderDiagnostics(parsed.diagnostics, { source: () => undefined, color }));
    return EXIT.usage;
  }
  const vars = parsed.vars;
  const playbooks = expandPlaybookArgs(files.length > 0 ? files : ['playbooks']);

  const outputDir = resolve(opts.out ?? 'wbplay-out');
  await mkdir(outputDir, { recursive: true });
  const realOut = await realpath(outputDir);
  // The page's runs write reports into the folder as `wbplay run` does: one session or run at a time.
  const { FolderLock } = await import('../files/folder-lock.js');
  const lock = await FolderLock.take(realOut, commandLine(), {
    notice: (message) => process.stderr.write(`wbplay ui: ${message}\n`),
  });
  const workbench = await chooseWorkbench(opts.url[0], playbooks, vars);
  const [{ CaptureStore }, { LiveRun }, { startUiServer }, { canOpenBrowser, openBrowser }] = await Promise.all([
    import('../report/capture-store.js'),
    import('../report/ui-feed.js'),
    import('../report/ui-server.js'),
    import('./show-report.js'),
  ]);
  const live = new LiveRun(new CaptureStore(realOut), workbench.label);
  const stop = new AbortController();
  const session = new UiSession({
    playbooks,
    vars,
    outputDir: realOut,
    workbench,
    reach: (plans: readonly Plan[]) => {
      if (workbench.embedded) return {};
      const token = run.tokenFor(plans, opts);
      return {
        ...(token ? { token: token.token, tokenSource: token.source } : {}),
        ...(opts.allowInsecureToken ? { allowInsecureToken: true } : {}),
      };
    },
    run: {
      ...(settings.retry ? { retry: settings.retry } : {}),
      ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
      ...(settings.requestTimeoutMs !== undefined ? { requestTimeoutMs: settings.requestTimeoutMs } : {}),
      golden: {
        update: settings.update ?? (run.isCi(process.env) ? 'none' : 'missing'),
        ci: run.isCi(process.env),
        ...(opts.goldenTemplate ? { template: opts.goldenTemplate } : {}),
      },
    },
    live,
    log: (line) => process.stdout.write(`wbplay ui: ${line}\n`),
    signal: stop.signal,
  });
  let server: Awaited<ReturnType<typeof startUiServer>>;
  try {
    server = await startUiServer({
      outputDir: realOut,
      host: cli.host,
      port,
      live,
      rerun: session.again,
    });
  } catch (err) {
    await workbench.stop();
    throw new CommandError(
      'SERVER_FAILED',
      `could not serve the page on ${cli.host}:${port}: ${(err as Error).message}`,
    );
  }
  process.stdout.write(`wbplay ui: serving ${server.url} (Ctrl-C to stop)\n`);
  if (cli.open && canOpenBrowser()) openBrowser(server.url);
  // The first Ctrl-C lets the run in progress end and write its reports; a second quits at once.
  const onSignal = (): void => {
    if (stop.signal.aborted) {
      lock.releaseSync();
      process.exit(EXIT.interrupted);
    }
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await session.runUntilStopped();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server.close();
    await lock.release();
  }
  return EXIT.interrupted;
}

interface SessionWorkbench {
  url: string;
  label: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * The session's one workbench: the URL given (option or configuration), else the first
 * playbook's `workbench.url`, else WORKBENCH_URL, else a reference workbench started here and
 * kept for the session, as `wbplay run --watch` does.
 */
async function chooseWorkbench(
  given: string | undefined,
  playbooks: readonly string[],
  vars: Readonly<Record<string, string>>,
): Promise<SessionWorkbench> {
  const { compilePlaybook } = await import('../compile/index.js');
  const fromPlan =
    given === undefined
      ? playbooks.map((p) => compilePlaybook(p, { vars, checkFiles: false }).plan?.workbench.url).find(Boolean)
      : undefined;
  const url = given ?? fromPlan ?? process.env.WORKBENCH_URL;
  if (url !== undefined) {
    const shown = new URL(url);
    shown.username = '';
    shown.password = '';
    return { url, label: shown.href.replace(/\/$/, ''), embedded: false, stop: async () => undefined };
  }
  const ref = await (await import('../sim/server.js')).startReferenceWorkbench();
  process.stderr.write(`wbplay ui: no workbench URL given: running on an embedded reference workbench at ${ref.url}\n`);
  return { url: ref.url, label: 'embedded reference workbench', embedded: true, stop: () => ref.stop() };
}
