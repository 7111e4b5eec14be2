import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseSource } from '../playbook/parse.js';
import { readSource } from '../playbook/source.js';
import { toPlain } from '../playbook/tree.js';
import { stem } from '../compile/foreach.js';
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
 * Whether a playbook's tags pass `--tag`: any of the tags named, and none of those named with
 * `!` (`--tag !dicomweb` leaves out the playbooks that need an archive).
 */
export function tagsMatch(own: readonly string[], tags: readonly string[]): boolean {
  const wanted = tags.filter((t) => !t.startsWith('!'));
  const unwanted = tags.filter((t) => t.startsWith('!')).map((t) => t.slice(1));
  if (own.some((t) => unwanted.includes(t))) return false;
  return wanted.length === 0 || own.some((t) => wanted.includes(t));
}

/**
 * `--tag` and `--grep` choose playbooks before any is compiled, so one that is not chosen
 * cannot fail the run. Both are judged from the file's top level: its `tags`, and for `--grep`
 * the text its one case will be matched with (`<name> main`). A playbook with `foreach` has
 * cases named after studies the compiler reads, so `--grep` keeps it for the compiler to filter
 * case by case. A file that cannot be read or parsed stays in, so that its problem is reported
 * rather than hidden.
 */
export function selectPlaybooks(files: readonly string[], tags: readonly string[], grep?: RegExp): string[] {
  if (tags.length === 0 && grep === undefined) return [...files];
  return files.filter((file) => {
    let top: Record<string, unknown>;
    try {
      // The playbook reader, so choosing playbooks costs what validating them does.
      const root = parseSource(readSource(file, process.cwd())).root;
      const parsed: unknown = root ? toPlain(root) : undefined;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return true;
      top = parsed as Record<string, unknown>;
    } catch {
      return true;
    }
    const own = Array.isArray(top.tags) ? top.tags.map(String) : [];
    if (!tagsMatch(own, tags)) return false;
    if (grep === undefined || 'foreach' in top) return true;
    if (top.name !== undefined && (typeof top.name !== 'string' || top.name.includes('${'))) return true;
    const name = typeof top.name === 'string' ? top.name : stem(file);
    return grep.test(`${name} main`);
  });
}
