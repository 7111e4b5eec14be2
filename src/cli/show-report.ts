import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { type RegisterCommand, wholeNumber } from './command.js';
import { CommandError, EXIT, isFolderInUse, reportError } from './errors.js';

/** `wbplay show-report`: the HTML report served on loopback, with golden review. */
export const registerShowReport: RegisterCommand = (program, setExitCode) => {
  program
    .command('show-report')
    .description(
      "serve a run's HTML report on loopback and open it; failed image checks can be accepted as goldens from the page",
    )
    .argument('[dir]', "the run's output folder", 'wbplay-out')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (default: a free one)')
    .option('--no-open', 'do not open a browser')
    .action(async (dir: string, opts: { host: string; port?: string; open: boolean }) => {
      try {
        const port = opts.port === undefined ? 0 : wholeNumber(opts.port);
        if (port === undefined || port > 65535)
          throw new CommandError('BAD_OPTION', `--port must be a port number, got '${opts.port ?? ''}'`);
        const [{ startReviewServer }, { refuseHeld }, { projectRoot }] = await Promise.all([
          import('../report/review-server.js'),
          import('../files/folder-lock.js'),
          import('./config.js'),
        ]);
        await refuseHeld(resolve(dir), 'open its report');
        const server = await startReviewServer({ outputDir: dir, host: opts.host, port, root: projectRoot() });
        console.log(`Serving the report of ${dir} at ${server.url} (Ctrl-C to stop)`);
        if (opts.open && canOpenBrowser()) openBrowser(server.url);
        await new Promise<void>((done) => {
          const stop = (): void => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            void server.close().then(done);
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        setExitCode(EXIT.ok);
      } catch (err) {
        setExitCode(
          reportError(err, { code: 'SERVER_FAILED', exitCode: isFolderInUse(err) ? EXIT.usage : EXIT.failed }),
        );
      }
    });
};

/** A browser is opened only where someone can see it: never in CI, never without a display. */
export function canOpenBrowser(): boolean {
  if (process.env.CI) return false;
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

export function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => console.log(`could not open a browser; open ${url}`));
  child.unref();
}
