import type { ErrorInfo } from '../result/result.js';

/**
 * Hints that fit where they are read. A failed image check's own hint is written for any
 * reader; a person at a terminal is pointed to the report served with its Accept buttons, and
 * a person in the HTML report to the button beside the images, each with the command that
 * accepts without a browser.
 */

/** The codes of an image check that ran and did not match its golden. */
const IMAGE_CHECK_CODES: ReadonlySet<string> = new Set(['IMAGE_MISMATCH', 'IMAGE_SIZE_MISMATCH']);

export function isFailedImageCheck(error: ErrorInfo | undefined): boolean {
  return error !== undefined && IMAGE_CHECK_CODES.has(error.code);
}

/** For a terminal: where to look at expected, actual and diff, and how to accept. */
export function terminalImageHint(out: string): string {
  const dir = commandArg(out);
  return `see expected, actual and diff side by side: wbplay show-report ${dir}; if the change is intended, accept it there or with wbplay accept ${dir} (or run again with --update-goldens=changed)`;
}

/** For the HTML report: the Accept button when the page is served for review, else how to get it. */
export function htmlImageHint(out: string, served: boolean): string {
  const dir = commandArg(out);
  return served
    ? `If the change is intended, press Accept as golden below, or run wbplay accept ${dir}.`
    : `If the change is intended, run wbplay accept ${dir}, or open this report with wbplay show-report ${dir} and press Accept as golden.`;
}

/** A path as a shell word: quoted only when it needs to be. */
export function commandArg(path: string): string {
  return /^[\w./:@+-]+$/.test(path) ? path : `"${path.replace(/(["\\$`])/g, '\\$1')}"`;
}
