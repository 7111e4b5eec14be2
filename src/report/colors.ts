import type { Status } from '../run/result.js';

/**
 * Terminal colours. A dozen SGR codes written here rather than taken from a library: the
 * decision (TTY and NO_COLOR of the given environment, not of this process) must follow the
 * stream a reporter writes to, which the colour libraries decide once, globally, at import.
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

/** Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org) or TERM is dumb. */
export function useColor(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if (!isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

export function createPalette(enabled: boolean): Palette {
  const sgr = (open: number, close: number) => (text: string): string => (enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text);
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
export function paintStatus(palette: Palette, status: Status, text: string = status): string {
  switch (status) {
    case 'passed':
      return palette.green(text);
    case 'failed':
    case 'error':
      return palette.red(text);
    case 'skipped':
      return palette.yellow(text);
  }
}
