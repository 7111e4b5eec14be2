import type { RunStatus } from '../result/result.js';

/**
 * Terminal colours. Whether to colour is decided here for every output of wbplay (reporters,
 * diagnostics, command errors); the palette draws the reporters' colours. A dozen SGR codes
 * written here rather than taken from a library: the decision must follow the stream being
 * written to and the environment given, which the colour libraries decide once, at import.
 */
export interface Palette {
  readonly enabled: boolean;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/** A stream, or just whether it is a terminal. */
export type ColorTarget = { isTTY?: boolean } | boolean;

/**
 * Whether to colour what goes to `target`:
 * - FORCE_COLOR set to anything but `0` or `false` colours even a pipe (and wins over the rest,
 *   as in Node itself), while `0` or `false` turns colour off even on a terminal;
 * - else never with NO_COLOR set to anything (no-color.org), never off a terminal, and never
 *   on a terminal that says it cannot (TERM=dumb).
 * An empty variable counts as unset, as no-color.org asks.
 */
export function useColor(
  target: ColorTarget,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const isTTY = typeof target === 'boolean' ? target : target.isTTY === true;
  return isTTY && env.TERM !== 'dumb';
}

export function createPalette(enabled: boolean): Palette {
  const sgr =
    (open: number, close: number) =>
    (text: string): string =>
      enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    dim: sgr(2, 22),
    bold: sgr(1, 22),
  };
}

/** The status word coloured by its meaning. */
export function paintStatus(palette: Palette, status: RunStatus, text: string = status): string {
  switch (status) {
    case 'passed':
      return palette.green(text);
    case 'failed':
    case 'error':
      return palette.red(text);
    case 'skipped':
    case 'interrupted':
      return palette.yellow(text);
  }
}
