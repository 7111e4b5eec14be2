import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/**
 * Files (or, with a trailing `/`, folders) matching a glob: `*`, `?`, `[abc]`, `{a,b}` within
 * a path segment and `**` for any depth. Node 20 has no glob of its own and this is the whole
 * of what a foreach needs. Results are absolute and sorted, so cases come in a stable order.
 */
export function glob(pattern: string, base: string): string[] {
  const dirsOnly = pattern.endsWith('/');
  const absolute = isAbsolute(pattern);
  const segments = pattern.split('/').filter((s) => s !== '' && s !== '.');
  const start = absolute ? '/' : base;
  const found = new Set<string>();
  walk(start, segments, 0, dirsOnly, found);
  return [...found].sort();
}

function walk(dir: string, segments: readonly string[], i: number, dirsOnly: boolean, found: Set<string>): void {
  const segment = segments[i];
  if (segment === undefined) {
    if (isKind(dir, dirsOnly)) found.add(dir);
    return;
  }
  if (segment === '**') {
    walk(dir, segments, i + 1, dirsOnly, found);
    for (const entry of list(dir))
      if (entry.dir && !entry.name.startsWith('.')) walk(join(dir, entry.name), segments, i, dirsOnly, found);
    return;
  }
  if (segment === '..' || !/[*?[{]/.test(segment)) {
    walk(join(dir, segment), segments, i + 1, dirsOnly, found);
    return;
  }
  const re = segmentRegExp(segment);
  for (const entry of list(dir)) {
    if (entry.name.startsWith('.') && !segment.startsWith('.')) continue;
    if (re.test(entry.name)) walk(join(dir, entry.name), segments, i + 1, dirsOnly, found);
  }
}

function list(dir: string): { name: string; dir: boolean }[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((d) => ({
      name: d.name,
      dir: d.isDirectory() || (d.isSymbolicLink() && isKind(join(dir, d.name), true)),
    }));
  } catch {
    return [];
  }
}

function isKind(path: string, dir: boolean): boolean {
  try {
    const s = statSync(path);
    return dir ? s.isDirectory() : s.isFile();
  } catch {
    return false;
  }
}

export function segmentRegExp(segment: string): RegExp {
  let re = '';
  let braces = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] ?? '';
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 1);
      if (close < 0) re += '\\[';
      else {
        const body = segment
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = close;
      }
    } else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|\\\]{}]/g, '\\$&');
  }
  return new RegExp(`^${re}${')'.repeat(braces)}$`);
}
