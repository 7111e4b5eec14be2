import { resolve } from 'node:path';
import { commandLine, type RegisterCommand } from './command.js';
import { EXIT, reportError } from './errors.js';

/** `wbplay merge-reports`: the reports of the shards of one run, as one report. */
export const registerMergeReports: RegisterCommand = (program, setExitCode) => {
  program
    .command('merge-reports')
    .description(
      'merge the report folders of the shards of one run into one JSON, JUnit and HTML report (exit 1 when a merged case failed or a shard was interrupted, 2 on unreadable or overlapping reports or a folder a run still holds)',
    )
    .argument('<dir...>', 'output folders of the shards (each holds a report.json)')
    .option('--out <dir>', 'folder for the merged reports', 'wbplay-out/merged')
    .action(async (dirs: string[], opts: { out: string }) => {
      const [
        { mergeReports, notReached },
        { writeReportFiles },
        { FolderLock, refuseHeld },
        { projectRoot },
        { mergeShardReviews },
      ] = await Promise.all([
        import('../report/merge.js'),
        import('../report/factory.js'),
        import('../files/folder-lock.js'),
        import('./config.js'),
        import('../review/review-merge.js'),
      ]);
      const out = resolve(opts.out);
      try {
        // A shard still running has no final report yet; the merged folder is written by this command alone.
        for (const dir of dirs) await refuseHeld(resolve(dir), 'merge its report');
        const lock = await FolderLock.take(out, commandLine());
        let result, written;
        try {
          result = await mergeReports(dirs, out);
          written = await writeReportFiles(result, out, undefined, projectRoot());
          // The shards' reviews follow their cases, so verdicts given before the merge are kept.
          written.push(...(await mergeShardReviews(dirs, out)));
        } finally {
          await lock.release();
        }
        const s = result.summary;
        const upToDate = s.upToDate ? ` (${s.upToDate} up to date)` : '';
        process.stdout.write(
          `merged ${dirs.length} report${dirs.length === 1 ? '' : 's'}: ${s.total} cases, ${s.passed} passed${upToDate}, ${s.failed} failed, ${s.error} errors, ${s.skipped} skipped\n${written.map((p) => `  ${p}\n`).join('')}`,
        );
        const missing = notReached(result);
        if (missing.length > 0) {
          const names = missing.slice(0, 20).map((c) => c.name);
          if (missing.length > 20) names.push(`… and ${missing.length - 20} more`);
          process.stderr.write(
            `incomplete: a shard was interrupted, so ${missing.length} of the ${s.total} cases did not run: ${names.join(', ')}\n  run that shard again (it resumes where it stopped), then merge again\n`,
          );
        }
        setExitCode(
          result.status === 'failed' || result.status === 'error' || result.status === 'interrupted'
            ? EXIT.failed
            : EXIT.ok,
        );
      } catch (err) {
        // Report errors carry their code and hint; anything else is still a problem of the input folders.
        setExitCode(reportError(err, { code: 'MERGE_FAILED', exitCode: EXIT.usage }));
      }
    });
};
