import type { RegisterCommand } from './command.js';
import { EXIT, reportError } from './errors.js';

/**
 * `wbplay cache`: the folder that holds series retrieved from DICOMweb archives. It holds
 * patient data, so it can be found (`path`) and emptied (`clean`) in one command.
 */
export const registerCache: RegisterCommand = (program, setExitCode) => {
  const cache = program
    .command('cache')
    .description('the local cache of series retrieved from DICOMweb archives (it holds patient data)');
  const open = async (
    project: string | undefined,
  ): Promise<{ root: string; clean(): Promise<{ files: number; bytes: number }> }> => {
    const [{ loadConfig }, { defaultCacheRoot }, { SeriesCache }] = await Promise.all([
      import('./config.js'),
      import('../dicomweb/cache-layout.js'),
      import('../dicomweb/index.js'),
    ]);
    const config = await loadConfig(project);
    const root = config?.settings.cache ?? defaultCacheRoot(process.env);
    const series = new SeriesCache(root);
    return { root, clean: () => series.clean() };
  };
  cache
    .command('path')
    .description("print the cache's folder (cache: in wbplay.config.yaml, else $XDG_CACHE_HOME/wbplay/dicomweb)")
    .option('--project <name>', 'use the named project of wbplay.config.yaml')
    .action(async (opts: { project?: string }) => {
      try {
        process.stdout.write(`${(await open(opts.project)).root}\n`);
        setExitCode(EXIT.ok);
      } catch (err) {
        setExitCode(reportError(err, { code: 'BAD_OPTION', exitCode: EXIT.usage }));
      }
    });
  cache
    .command('clean')
    .description('remove every series the cache holds')
    .option('--project <name>', 'use the named project of wbplay.config.yaml')
    .action(async (opts: { project?: string }) => {
      try {
        const c = await open(opts.project);
        const { files, bytes } = await c.clean();
        process.stdout.write(
          `removed ${files} ${files === 1 ? 'file' : 'files'} (${(bytes / 1e6).toFixed(1)} MB) from ${c.root}\n`,
        );
        setExitCode(EXIT.ok);
      } catch (err) {
        setExitCode(reportError(err, { code: 'WRITE_FAILED', exitCode: EXIT.failed }));
      }
    });
};
