import { userInfo } from 'node:os';
import { relative, resolve } from 'node:path';
import { commandLine, type RegisterCommand, wholeNumber } from './command.js';
import { CommandError, EXIT, isFolderInUse, reportError, type ExitCode } from './errors.js';
import { canOpenBrowser, openBrowser } from './show-report.js';

interface ReviewOptions {
  reviewer?: string;
  host: string;
  port?: string;
  open: boolean;
  merge?: string[];
}

/** `wbplay review`: verdicts on a cohort's captures, case by case, and two reviewers' verdicts merged. */
export const registerReview: RegisterCommand = (program, setExitCode) => {
  program
    .command('review')
    .description(
      "review a finished run's captures case by case on a page served on loopback: pass, fail or unsure, comments, tags and representative cases, saved to OUT/review.json and OUT/review.csv; --merge A B merges two reviewers' files and lists where they disagree",
    )
    .argument('[out]', "the run's output folder", 'wbplay-out')
    .option('--reviewer <name>', 'who gives the verdicts (default: the user name of this account)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (default: a free one)')
    .option('--no-open', 'do not open a browser')
    .option(
      '--merge <files...>',
      "merge two reviewers' review.json files (or folders holding one) into OUT's review when OUT is given, and list their disagreements",
    )
    .action(async (out: string, opts: ReviewOptions, command: { args: string[] }) => {
      try {
        if (opts.merge) {
          setExitCode(await merge(opts.merge, command.args.length > 0 ? out : undefined));
          return;
        }
        const port = opts.port === undefined ? 0 : wholeNumber(opts.port);
        if (port === undefined || port > 65535)
          throw new CommandError('BAD_OPTION', `--port must be a port number, got '${opts.port ?? ''}'`);
        const reviewer = (opts.reviewer ?? accountName()).trim();
        if (reviewer === '')
          throw new CommandError('BAD_OPTION', '--reviewer must name someone', 'e.g. --reviewer "A. Reviewer"');
        const [{ startCaseReviewServer }, { FolderLock, refuseHeld }] = await Promise.all([
          import('../review/case-review-server.js'),
          import('../files/folder-lock.js'),
        ]);
        await refuseHeld(resolve(out), 'review its cases');
        const server = await startCaseReviewServer({ outputDir: out, reviewer, host: opts.host, port });
        // One review at a time per folder: a second would write over this one's verdicts, and a
        // run would change the captures under it.
        const lock = await FolderLock.take(resolve(out), commandLine()).catch(async (err: unknown) => {
          await server.close();
          throw err;
        });
        console.log(
          `Reviewing ${server.cases} case${server.cases === 1 ? '' : 's'} of ${out} as ${reviewer} at ${server.url} (Ctrl-C to stop)`,
        );
        if (opts.open && canOpenBrowser()) openBrowser(server.url);
        await new Promise<void>((done) => {
          const stop = (): void => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            void server
              .close()
              .then(() => lock.release())
              .then(done);
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        setExitCode(EXIT.ok);
      } catch (err) {
        setExitCode(
          reportError(err, {
            code: 'SERVER_FAILED',
            exitCode: isFolderInUse(err) || isInputError(err) ? EXIT.usage : EXIT.failed,
          }),
        );
      }
    });
};

/** The account's user name; none where the system has no entry for this user (a container's arbitrary uid). */
function accountName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? '';
  }
}

/** A review or report that cannot be read is the user's to fix: it ends as usage errors do. */
function isInputError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(REVIEW|REPORT)_/.test(code);
}

async function merge(files: string[], out: string | undefined): Promise<ExitCode> {
  if (files.length !== 2)
    throw new CommandError(
      'BAD_OPTION',
      `--merge takes two review files, got ${files.length}`,
      'e.g. wbplay review wbplay-out/cohort --merge ana/review.json ben/review.json',
    );
  const [{ mergeReviewers }, { readReview }, { readReviewCases }, { writeReview }, { FolderLock }] = await Promise.all([
    import('../review/review-merge.js'),
    import('../result/review-file.js'),
    import('../review/review-cases.js'),
    import('../review/review-store.js'),
    import('../files/folder-lock.js'),
  ]);
  const [a, b] = await Promise.all(files.map((f) => readReview(resolve(f), { mustExist: true })));
  const { review, disagreements } = mergeReviewers(a!, b!);
  const reviewed = Object.keys(review.cases).length;
  console.log(`merged ${files[0]} and ${files[1]}: ${reviewed} case${reviewed === 1 ? '' : 's'} reviewed`);
  if (out !== undefined) {
    const lock = await FolderLock.take(resolve(out), commandLine());
    try {
      for (const file of await writeReview(await readReviewCases(resolve(out)), review))
        console.log(`  ${relative(process.cwd(), file)}`);
    } finally {
      await lock.release();
    }
  }
  if (disagreements.length === 0) console.log('no disagreements');
  else {
    console.log(`${disagreements.length} disagreement${disagreements.length === 1 ? '' : 's'}:`);
    for (const d of disagreements)
      console.log(
        `  ${d.case}: ${d.said.map((s) => `${s.reviewer} ${s.verdict}${s.comment ? ` (${s.comment.replace(/\s+/g, ' ')})` : ''}`).join(', ')}`,
      );
  }
  return EXIT.ok;
}
