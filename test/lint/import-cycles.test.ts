// No module of src/ imports itself back through others, type imports and `import()` included:
// a cycle makes load order matter and hides which module is the lower one. The folder graph
// (eslint.config.js) holds folders apart; this holds the files inside a folder.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { root } from '../helpers/cohort.js';

/** Relative imports of a module: `import … from`, `export … from`, `import type`, `import('…')`. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const m of code.matchAll(/\b(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  for (const m of code.matchAll(/^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm)) found.push(m[1]!);
  return found;
}

/** The module graph of the TypeScript files under a folder, by path relative to it. */
function moduleGraph(folder: string): Map<string, string[]> {
  const files = readdirSync(folder, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const abs = join(folder, file);
    const targets = importsOf(readFileSync(abs, 'utf8')).map((spec) =>
      relative(folder, resolve(dirname(abs), spec.replace(/\.js$/, '.ts'))),
    );
    graph.set(
      file,
      [...new Set(targets)].filter((t) => t !== file),
    );
  }
  return graph;
}

/** Every strongly connected group of more than one module (Tarjan), each sorted. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the check finds a cycle of type imports and of import() alike', () => {
  const graph = new Map<string, string[]>();
  const add = (file: string, text: string): void => {
    graph.set(
      file,
      importsOf(text).map((s) => join(dirname(file), s.replace(/\.js$/, '.ts'))),
    );
  };
  add('a/x.ts', "import type { Y } from './y.js';\nexport const x = 1;\n");
  add('a/y.ts', "export async function y() { return import('../b/z.js'); }\n");
  add('b/z.ts', "export { x } from '../a/x.js';\n// import { nothing } from './w.js';\n");
  add('b/w.ts', "import { x } from '../a/x.js';\n");
  assert.deepEqual(cycles(graph), [['a/x.ts', 'a/y.ts', 'b/z.ts']]);
  graph.set('b/z.ts', []);
  assert.deepEqual(cycles(graph), []);
});

test('src/ holds no import cycle', () => {
  const graph = moduleGraph(join(root, 'src'));
  assert.ok(graph.size > 300, `${graph.size} modules read`);
  assert.deepEqual(
    cycles(graph).map((c) => c.join(' -> ')),
    [],
    'modules that import each other: give the names they share a module of their own',
  );
});
