#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { commandsFor } from './commands.js';
import { CommandError, EXIT, reportError, type ExitCode } from './errors.js';

export async function main(argv: string[]): Promise<ExitCode> {
  const program = new Command('wbplay')
    .description('Drive a medical-image workbench from declarative YAML playbooks.')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError()
    // Commander's own complaints (unknown option, missing argument) look like every other error.
    .configureOutput({
      outputError: (text) => reportError(new CommandError('USAGE', text.trim().replace(/^error: /, ''))),
    });
  let exitCode: ExitCode = EXIT.ok;
  const args = bareUpdateGoldens(argv);
  for (const register of await commandsFor(args)) {
    register(program, (code) => {
      exitCode = code;
    });
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string; exitCode?: number }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return EXIT.ok;
    if (typeof code === 'string' && code.startsWith('commander.')) return EXIT.usage;
    throw err;
  }
  return exitCode;
}

const UPDATE_MODES = new Set(['none', 'missing', 'changed', 'all']);

/**
 * `--update-goldens` (or `-u`) takes an optional mode, so a parser would take the playbook after
 * it for the mode. Bare, anywhere on the line, it means `changed`: the next word is left alone
 * unless it is a mode.
 */
export function bareUpdateGoldens(argv: readonly string[]): string[] {
  return argv.flatMap((arg, i) => {
    if (arg !== '--update-goldens' && arg !== '-u') return [arg];
    const next = argv[i + 1];
    return next !== undefined && UPDATE_MODES.has(next) ? ['--update-goldens'] : ['--update-goldens=changed'];
  });
}

// Run only when started as a program (also through the npm bin symlink), not when imported.
function startedAsProgram(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

/**
 * A reader that stops reading (`wbplay run … | head`) closes the pipe: what is still to be
 * printed is dropped, and the command goes on to its end, so a run still writes its reports and
 * its exit code says how it went. Node would end the process on the first write to the closed
 * pipe instead.
 */
function dropOutputToClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
      throw err;
    });
}

if (startedAsProgram()) {
  dropOutputToClosedPipes();
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // Only a bug gets here: the stack goes with it, for the report.
      process.exitCode = reportError(
        new CommandError(
          'INTERNAL',
          err instanceof Error ? err.message : String(err),
          'this is a bug in wbplay; please report it with the trace below',
          EXIT.failed,
        ),
      );
      if (err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    },
  );
}
