import type { Command } from 'commander';
import type { ExitCode } from './errors.js';

/**
 * A command module adds its subcommand to the program and reports its exit code through
 * `setExitCode`; adding a command is one module and one line in `commands.ts`.
 */
export type RegisterCommand = (program: Command, setExitCode: (code: ExitCode) => void) => void;

/** For repeatable options (`--var a=1 --var b=2`): every value, in the order given. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A whole non-negative number as typed on the command line (digits only), or undefined. */
export function wholeNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** How the command was typed, for the message another command that wants its folder prints. */
export function commandLine(): string {
  const line = ['wbplay', ...process.argv.slice(2)].join(' ');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
