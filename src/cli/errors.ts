import { renderDiagnostic, type Renderable } from '../diagnostics/render.js';
import { useColor } from '../report/colors.js';

/** The exit codes of every command; the README and `wbplay run --help` list them. */
export const EXIT = {
  /** Done: every case passed or was up to date. */
  ok: 0,
  /** A case failed or erred, or the command could not do its work. */
  failed: 1,
  /** Invalid playbook, bad option or other input only the user can change. */
  usage: 2,
  /**
   * The run ended, but a file that holds its result could not be written (report.json,
   * report.html, junit.xml, a trace, the resume journal), or a console reporter broke: what
   * the run did is not all on record. Wins over 1, since the evidence itself is missing.
   */
  incomplete: 3,
  /** Stopped by SIGINT (Ctrl-C): the shell's 128 + 2. Reports hold what ran. */
  interrupted: 130,
  /** Stopped by SIGTERM (CI runners, Kubernetes): 128 + 15. Reports hold what ran. */
  terminated: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Codes of the command line's own errors. They are stable, like diagnostic codes; errors of
 * lower layers (a report that cannot be read, a refused token) keep their own codes.
 */
export type CommandErrorCode =
  /** An option value or a combination of options that cannot work. */
  | 'BAD_OPTION'
  /** What commander refuses before a command starts: an unknown option, a missing argument. */
  | 'USAGE'
  /** `--grep` or `--tag` left no case to run. */
  | 'NO_CASES'
  /** A playbook holds the API token itself instead of naming its environment variable. */
  | 'TOKEN_IN_PLAYBOOK'
  /** The environment variable named for the token is not set. */
  | 'TOKEN_NOT_SET'
  /** A token would go in cleartext to a host that is not loopback (the client's code, kept). */
  | 'INSECURE_TOKEN'
  /** A run that could not be carried out (not a failed case: that is a result). */
  | 'RUN_FAILED'
  /** A reporter threw; the run went on without it. */
  | 'REPORTER_FAILED'
  /** A file of the run's result (a report, a trace, the journal) could not be written. */
  | 'NOT_WRITTEN'
  /** Another run holds the output folder. */
  | 'OUTPUT_FOLDER_IN_USE'
  /** Shard reports that could not be merged or written. */
  | 'MERGE_FAILED'
  /** An output directory that cannot be used. */
  | 'BAD_OUTPUT_DIR'
  /** Files that could not be written. */
  | 'WRITE_FAILED'
  /** A figure that cannot be made from an output folder as the playbook asks. */
  | 'FIGURE_FAILED'
  /** The reference workbench's port is taken. */
  | 'PORT_IN_USE'
  /** The reference workbench cannot listen on the host given. */
  | 'HOST_UNAVAILABLE'
  /** The reference workbench did not start or stop. */
  | 'SERVER_FAILED'
  /** A bug in wbplay, not the user's mistake. */
  | 'INTERNAL';

/** A problem a command reports and ends with. */
export class CommandError extends Error {
  constructor(
    readonly code: CommandErrorCode,
    message: string,
    /** What the user can do about it. */
    readonly hint?: string,
    readonly exitCode: ExitCode = EXIT.usage,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** Code, message and hint of anything thrown: its own code and hint when it carries them. */
export function describeError(err: unknown, fallbackCode: CommandErrorCode): Renderable {
  if (!(err instanceof Error)) return { code: fallbackCode, message: String(err) };
  const { code, hint } = err as Error & { code?: unknown; hint?: unknown };
  return {
    code: typeof code === 'string' && code !== '' ? code : fallbackCode,
    message: err.message,
    ...(typeof hint === 'string' && hint !== '' ? { hint } : {}),
  };
}

export interface ReportErrorOptions {
  /** The code shown when the error carries none. */
  code?: CommandErrorCode;
  /** The exit code when the error is not a `CommandError` (which has its own). */
  exitCode?: ExitCode;
  /** Where the error goes (default stderr) and the environment that decides its colour. */
  stream?: { isTTY?: boolean; write(text: string): unknown };
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Writes an error to stderr drawn as diagnostics are (`error[CODE]: message`, then its hint)
 * and returns the exit code the command ends with.
 */
export function reportError(err: unknown, options: ReportErrorOptions = {}): ExitCode {
  const stream = options.stream ?? process.stderr;
  const shown = describeError(err, options.code ?? 'INTERNAL');
  stream.write(`${renderDiagnostic(shown, { source: () => undefined, color: useColor(stream, options.env) })}\n`);
  return err instanceof CommandError ? err.exitCode : (options.exitCode ?? EXIT.failed);
}

/** Reports a problem the command found itself; returns the exit code to end with. */
export function fail(
  code: CommandErrorCode,
  message: string,
  hint?: string,
  exitCode: ExitCode = EXIT.usage,
): ExitCode {
  return reportError(new CommandError(code, message, hint, exitCode));
}

/** Another run holds the folder: the user's to wait for or change, so it exits as usage does. */
export function isFolderInUse(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'OUTPUT_FOLDER_IN_USE';
}
