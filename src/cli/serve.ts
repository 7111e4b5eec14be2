// The fault grammar is tiny and import-free, so `--help` can show it without loading the server.
import { FAULT_SPEC_HELP } from '../sim/faults.js';
import { collect, wholeNumber, type RegisterCommand } from './command.js';
import { EXIT, fail } from './errors.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

interface ServeOptions {
  host: string;
  port: string;
  token?: string;
  allowedDir?: string[];
  open?: string[];
  inactive?: string[];
  faults?: string;
  events?: string;
  rateLimit?: string;
  clientAccess?: string;
  allowRemote?: boolean;
}

const FAULT_HELP = `\n${FAULT_SPEC_HELP}\n\nThe token can also come from the WBPLAY_TOKEN environment variable; it is never printed.`;

/** The flag behind each option the workbench may refuse. */
const FLAGS: Record<string, string> = {
  open: '--open',
  faults: '--faults',
  allowedDirs: '--allowed-dir',
  token: '--token',
  port: '--port',
  inactive: '--inactive',
};

export const registerServe: RegisterCommand = (program, setExitCode) => {
  program
    .command('serve')
    .description('run the reference workbench: the workbench REST API under /api/v1, with a software renderer')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8080')
    .option('--token <token>', 'require Authorization: Bearer <token> (default: $WBPLAY_TOKEN)')
    .option('--allowed-dir <dir>', 'restrict file-reference paths to this directory (repeatable)', collect)
    .option('--open <file>', 'load an image file at start (repeatable)', collect)
    .option('--inactive <editor>', 'start an editor closed: stdmulti or mxn (repeatable)', collect)
    .option('--faults <spec>', 'inject faults for testing clients (see below)')
    .option('--events <file>', 'append one JSON line per request to this file')
    .option('--rate-limit <n>', 'requests per minute and client IP (no limit by default)')
    .option(
      '--client-access <mode>',
      'accept localhost or all client IPs (default: localhost on a loopback --host, else all)',
    )
    .option('--allow-remote', 'allow a non-loopback --host without a token')
    .addHelpText('after', FAULT_HELP)
    .action(async (opts: ServeOptions) => {
      const usage = (message: string, hint?: string): void => setExitCode(fail('BAD_OPTION', message, hint));
      const port = wholeNumber(opts.port);
      if (port === undefined || port > 65535)
        return usage(`--port must be a number from 0 to 65535, got '${opts.port}'`);
      const token = opts.token ?? (process.env.WBPLAY_TOKEN || undefined);
      // Without a token anyone who can reach a non-loopback interface could load, read and change data.
      if (!LOOPBACK_HOSTS.has(opts.host) && token === undefined && !opts.allowRemote) {
        return usage(
          `--host ${opts.host} is reachable from other machines`,
          'set --token (or WBPLAY_TOKEN), or pass --allow-remote to serve without one',
        );
      }
      const inactive = opts.inactive ?? [];
      const badEditor = inactive.find((e) => e !== 'stdmulti' && e !== 'mxn');
      if (badEditor !== undefined) return usage(`--inactive takes stdmulti or mxn, got '${badEditor}'`);
      // Listening on a public interface only makes sense if other machines may then connect.
      const clientAccess = opts.clientAccess ?? (LOOPBACK_HOSTS.has(opts.host) ? 'localhost' : 'all');
      if (clientAccess !== 'localhost' && clientAccess !== 'all')
        return usage(`--client-access takes localhost or all, got '${clientAccess}'`);
      const rate = opts.rateLimit === undefined ? undefined : wholeNumber(opts.rateLimit);
      if (opts.rateLimit !== undefined && (rate === undefined || rate < 1))
        return usage(`--rate-limit must be a whole number of requests per minute (1 or more), got '${opts.rateLimit}'`);

      const { startReferenceWorkbench, WorkbenchConfigError } = await import('../sim/index.js');
      let handle;
      try {
        handle = await startReferenceWorkbench({
          host: opts.host,
          port,
          token,
          allowedDirs: opts.allowedDir,
          open: opts.open,
          inactive: inactive as Array<'stdmulti' | 'mxn'>,
          faults: opts.faults,
          events: opts.events,
          rateLimitPerMinute: rate,
          clientAccess,
        });
      } catch (err) {
        if (err instanceof WorkbenchConfigError)
          return usage(`${FLAGS[err.option] ?? err.option}${err.message.slice(err.option.length)}`);
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          return setExitCode(
            fail(
              'PORT_IN_USE',
              `port ${port} on ${opts.host} is in use`,
              'choose another --port (0 picks a free one)',
              EXIT.failed,
            ),
          );
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
          return setExitCode(
            fail('HOST_UNAVAILABLE', `cannot listen on ${opts.host}`, 'use an address of this machine', EXIT.failed),
          );
        return setExitCode(
          fail(
            'SERVER_FAILED',
            `cannot start: ${err instanceof Error ? err.message : String(err)}`,
            undefined,
            EXIT.failed,
          ),
        );
      }
      // A workbench that is up is ready to read: its decode threads start now, beside the
      // listening socket, not with the first large DICOM series it is sent.
      const decodePool = await import('../volume/dicom/decode-pool.js');
      decodePool.warmPool();
      console.log(
        `wbplay reference workbench listening on ${handle.url} (API at ${handle.url}/api/v1${token === undefined ? '' : ', bearer token required'})`,
      );
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      try {
        await handle.stop().finally(() => decodePool.stopPool());
        console.log('wbplay reference workbench stopped');
        setExitCode(EXIT.ok);
      } catch (err) {
        setExitCode(
          fail(
            'SERVER_FAILED',
            `cannot stop: ${err instanceof Error ? err.message : String(err)}`,
            undefined,
            EXIT.failed,
          ),
        );
      }
    });
};
