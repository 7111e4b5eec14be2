import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Span } from '../diagnostics/diagnostic.js';

/** One file of a playbook (the root or an include) with what spans need. */
export class SourceFile {
  /** Offsets where each line starts, for offset -> line/col without re-scanning. */
  private readonly lineStarts: number[];

  constructor(
    /** Absolute path. */
    readonly path: string,
    /** Path as shown in messages: relative to the display root when inside it. */
    readonly display: string,
    readonly text: string,
  ) {
    this.lineStarts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  /** 1-based line and column of an offset. */
  position(offset: number): { line: number; col: number } {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: clamped - (this.lineStarts[lo] ?? 0) + 1 };
  }

  span(start: number, end: number): Span {
    const a = this.position(start);
    const b = this.position(Math.max(end, start + 1));
    return { file: this.display, line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }
}

export function displayPath(absolute: string, root: string): string {
  const rel = relative(root, absolute);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : absolute;
}

/** Reads a file as a source; throws the fs error (the caller turns it into a diagnostic). */
export function readSource(path: string, displayRoot: string): SourceFile {
  const absolute = resolve(path);
  const text = readFileSync(absolute, 'utf8');
  return new SourceFile(absolute, displayPath(absolute, displayRoot), text);
}
