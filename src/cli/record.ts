import { basename, dirname, extname, join, resolve } from 'node:path';
import { Option } from 'commander';
import { collect, type RegisterCommand } from './command.js';
import { CommandError, EXIT, reportError } from './errors.js';

interface RecordCliOptions {
  url?: string;
  tokenEnv?: string;
  out: string;
  data?: string;
  map: string[];
  now?: string;
}

const HELP_AFTER = `
Captured: the data nodes (their data downloaded into --data, or your own file with --map), their
tree and names; visibility, opacity, colour and layer; an image's level window, colour map or
lookup table, rendering mode and interpolation; each window's per-node visibility, layer and
level window; the MxN layout document when the MxN editor is open; the selected position and
time step; each window's slice and camera; and a screenshot step for every window.

Not captured: nodes whose data the workbench cannot hand out (listed in the playbook's header
and as warnings), other MITK properties (transfer functions, outlines, volume rendering), and
anything outside the REST API (tool state, plugins' own views).`;

/** `wbplay record`: a playbook that reproduces the state of a running workbench. */
export const registerRecord: RegisterCommand = (program, setExitCode) => {
  program
    .command('record')
    .description('read the state of a running workbench and write a playbook that reproduces it on a fresh one')
    .option('--url <url>', 'the workbench (default: WORKBENCH_URL)')
    .option('--token-env <name>', 'environment variable holding the API token (default: WORKBENCH_TOKEN)')
    .requiredOption('--out <file>', 'the playbook to write')
    .option('--data <dir>', 'where node data is downloaded (default: <playbook name>-data beside it)')
    .option(
      '--map <name=file>',
      'load this file for the node of that name instead of downloading its data (repeatable)',
      collect,
      [],
    )
    // For reproducible recordings (tests, docs): the time the header names.
    .addOption(new Option('--now <iso>', 'the recording time written in the header').hideHelp())
    .addHelpText('after', HELP_AFTER)
    .action(async (opts: RecordCliOptions) => {
      try {
        setExitCode(await record(opts));
      } catch (err) {
        setExitCode(reportError(err, { code: 'RUN_FAILED', exitCode: EXIT.failed }));
      }
    });
};

async function record(opts: RecordCliOptions): Promise<typeof EXIT.ok> {
  const url = opts.url ?? process.env.WORKBENCH_URL;
  if (url === undefined)
    throw new CommandError(
      'BAD_OPTION',
      'record reads a running workbench: no --url given and WORKBENCH_URL is not set',
      'start the workbench with its REST server (or `wbplay serve`) and pass --url http://localhost:8080',
    );
  const map = new Map<string, string>();
  for (const pair of opts.map) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new CommandError(
        'BAD_OPTION',
        `--map '${pair}' is not NAME=FILE`,
        'give the node name, =, and the file to load for it',
      );
    map.set(pair.slice(0, at), resolve(pair.slice(at + 1)));
  }
  const playbook = resolve(opts.out);
  const dataDir = resolve(opts.data ?? join(dirname(playbook), `${basename(playbook, extname(playbook))}-data`));
  const tokenName = opts.tokenEnv ?? 'WORKBENCH_TOKEN';
  const token = process.env[tokenName];
  if (opts.tokenEnv !== undefined && !token)
    throw new CommandError(
      'TOKEN_NOT_SET',
      `the token's environment variable ${tokenName} is not set`,
      `set ${tokenName} to the workbench's API token`,
    );
  const [{ connect }, { recordWorkbench }, { writeFileAtomic }] = await Promise.all([
    import('../client/index.js'),
    import('../record/recorder.js'),
    import('../files/atomic-write.js'),
  ]);
  const client = connect({ url, ...(token ? { token } : {}) });
  try {
    const now = opts.now !== undefined ? new Date(opts.now) : undefined;
    if (now !== undefined && Number.isNaN(now.getTime()))
      throw new CommandError('BAD_OPTION', `--now '${opts.now}' is not an ISO date`);
    const [{ loadConfig }, { defaultCacheRoot }] = await Promise.all([
      import('./config.js'),
      import('../dicomweb/cache-layout.js'),
    ]);
    const cacheRoot = (await loadConfig(undefined))?.settings.cache ?? defaultCacheRoot(process.env);
    const recording = await recordWorkbench(client, {
      playbook,
      dataDir,
      map,
      url,
      cacheRoot,
      ...(now ? { now } : {}),
    });
    await writeFileAtomic(playbook, recording.text);
    for (const w of recording.warnings) process.stderr.write(`wbplay: warning: not reproduced: ${w}\n`);
    console.log(`wrote ${opts.out}`);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
