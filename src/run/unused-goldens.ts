import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Plan } from '../compile/plan.js';

/**
 * Golden images in the folders this run's checks read that no check of the run names: after a
 * full run they are obsolete (a renamed or removed check) and may be deleted. Only image files
 * directly in those folders count; a folder that cannot be read has none.
 */
export async function unusedGoldens(plans: readonly Plan[]): Promise<string[]> {
  const used = new Set<string>();
  for (const plan of plans) {
    for (const c of plan.cases) {
      for (const step of c.steps) {
        const golden = step.kind === 'expect_image' ? (step.args as { golden?: unknown }).golden : undefined;
        if (typeof golden === 'string') used.add(golden);
      }
    }
  }
  const folders = [...new Set([...used].map((g) => dirname(g)))].sort();
  const unused: string[] = [];
  for (const folder of folders) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.sort()) {
      const path = join(folder, name);
      if (/\.(png|jpe?g)$/i.test(name) && !name.startsWith('.') && !used.has(path)) unused.push(path);
    }
  }
  return unused;
}
