import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { glob } from '../compile/glob.js';

/**
 * The playbooks a command line names: files as given; a folder stands for the playbooks below
 * it; a pattern with `*`, `?` or `[` (quoted, so the shell left it) for the files it matches.
 * A YAML file without a top-level `version` is a fragment other playbooks include, not one to
 * run, so a folder does not bring it in.
 */
export function expandPlaybookArgs(args: readonly string[], cwd: string = process.cwd()): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (/[*?[]/.test(arg)) {
      out.push(...glob(arg, cwd).map((f) => shown(f, cwd)));
      continue;
    }
    let isDir = false;
    try {
      isDir = statSync(resolve(cwd, arg)).isDirectory();
    } catch {
      // Not there: the compiler says so, with the file's name.
    }
    out.push(...(isDir ? playbooksIn(resolve(cwd, arg)).map((f) => shown(f, cwd)) : [arg]));
  }
  return [...new Set(out)];
}

function playbooksIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => /^version\s*:/m.test(readFileSync(f, 'utf8')))
    .sort();
}

const shown = (file: string, cwd: string): string => {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
};

/**
 * `--tag` chooses playbooks before any is compiled, so one that is not chosen cannot fail the
 * run. Tags are read from the file's top level; a file that cannot be read or parsed stays in,
 * so that its problem is reported rather than hidden.
 */
export function selectByTag(files: readonly string[], tags: readonly string[]): string[] {
  if (tags.length === 0) return [...files];
  return files.filter((file) => {
    let top: unknown;
    try {
      top = parse(readFileSync(file, 'utf8'));
    } catch {
      return true;
    }
    const own = top !== null && typeof top === 'object' && Array.isArray((top as { tags?: unknown }).tags) ? (top as { tags: unknown[] }).tags.map(String) : [];
    return own.some((t) => tags.includes(t));
  });
}
