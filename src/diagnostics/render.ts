import type { Diagnostic } from './diagnostic.js';

/**
 * What the renderer draws: a diagnostic, or any other error that has a code, a message and
 * perhaps a hint (the command line's own errors are drawn the same way).
 */
export type Renderable = Omit<Diagnostic, 'code'> & { code: string };

export interface RenderOptions {
  /** The text of a file by its shown path, to quote the offending line. */
  source(file: string): string | undefined;
  color: boolean;
}

const RED = '\u001b[1;31m';
const BLUE = '\u001b[1;34m';
const YELLOW = '\u001b[1;33m';
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

/**
 * The one way a diagnostic is drawn:
 *
 *     error[UNKNOWN_STEP]: unknown step kind `screnshot`
 *       --> playbooks/figure.yaml:12:5
 *        |
 *     12 |   - screnshot: { of: stdmulti/axial }
 *        |     ^^^^^^^^^
 *        = hint: did you mean `screenshot`?
 */
export function renderDiagnostic(d: Renderable, options: RenderOptions): string {
  const paint = (style: string, text: string): string => (options.color ? `${style}${text}${RESET}` : text);
  const [style, label] = d.severity === 'warning' ? [YELLOW, 'warning'] : [RED, 'error'];
  const out: string[] = [`${paint(style, `${label}[${d.code}]`)}${paint(BOLD, `: ${d.message}`)}`];
  const span = d.span;
  if (!span) {
    if (d.hint) out.push(`  = hint: ${d.hint}`);
    return out.join('\n');
  }
  const text = options.source(span.file);
  const lineText = text === undefined ? undefined : sourceLine(text, span.line);
  const gutter = ' '.repeat(String(span.line).length);
  out.push(`${gutter}${paint(BLUE, '-->')} ${span.file}:${span.line}:${span.col}`);
  if (lineText !== undefined) {
    // Tabs would shift the caret; YAML forbids them in indentation, but not in values.
    const shown = lineText.replace(/\t/g, ' ');
    const start = Math.min(span.col - 1, shown.length);
    const end =
      span.endLine === span.line ? Math.max(span.endCol - 1, start + 1) : Math.max(shown.trimEnd().length, start + 1);
    out.push(`${gutter} ${paint(BLUE, '|')}`);
    out.push(`${paint(BLUE, `${span.line} |`)} ${shown}`);
    out.push(`${gutter} ${paint(BLUE, '|')} ${' '.repeat(start)}${paint(style, '^'.repeat(end - start))}`);
  }
  if (d.hint) out.push(`${gutter} ${paint(BLUE, '=')} hint: ${d.hint}`);
  return out.join('\n');
}

/** All diagnostics, separated by blank lines, with a closing count. */
export function renderDiagnostics(list: readonly Diagnostic[], options: RenderOptions): string {
  const blocks = list.map((d) => renderDiagnostic(d, options));
  const files = new Set(list.map((d) => d.span?.file).filter((f) => f !== undefined));
  const warnings = list.filter((d) => d.severity === 'warning').length;
  const errors = list.length - warnings;
  const counts = [
    ...(errors > 0 || warnings === 0 ? [`${errors} error${errors === 1 ? '' : 's'}`] : []),
    ...(warnings > 0 ? [`${warnings} warning${warnings === 1 ? '' : 's'}`] : []),
  ];
  const summary = `${counts.join(', ')}${files.size > 1 ? ` in ${files.size} files` : ''}`;
  return `${blocks.join('\n\n')}\n\n${summary}\n`;
}

function sourceLine(text: string, line: number): string | undefined {
  let start = 0;
  for (let i = 1; i < line; i++) {
    const next = text.indexOf('\n', start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
}
