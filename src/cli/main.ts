#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { commands } from './commands.js';

/** Exit codes shared by every command: 0 success, 1 a run failed, 2 bad input or usage. */
export const EXIT_USAGE = 2;

export async function main(argv: string[]): Promise<number> {
  const program = new Command('wbplay')
    .description('Drive a medical-image workbench from declarative YAML playbooks.')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError();
  let exitCode = 0;
  for (const register of commands) {
    register(program, (code) => {
      exitCode = code;
    });
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string; exitCode?: number }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return 0;
    if (typeof code === 'string' && code.startsWith('commander.')) return EXIT_USAGE;
    throw err;
  }
  return exitCode;
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

if (startedAsProgram()) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exitCode = 1;
    },
  );
}
