import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Where a merged folder's captures lie. `merge-reports` leaves each capture in its shard's folder
 * and names it there in the merged report (`../shard-1/study-001/axial.png`), so a capture the
 * playbook names in the merged folder (`${out}/study-001/axial.png`) is the one the report names
 * with the same path below a shard's folder. Undefined when the folder holds no merged report,
 * the path lies outside it, or no capture (or more than one) matches.
 */
export async function shardCapture(outputDir: string, file: string): Promise<string | undefined> {
  const inside = relative(outputDir, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  let report: unknown;
  try {
    report = JSON.parse(await readFile(resolve(outputDir, 'report.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const found = new Set<string>();
  for (const path of artefactPaths(report)) {
    const at = resolve(outputDir, path);
    if (relative(outputDir, at).startsWith('..') && at.endsWith(sep + inside)) found.add(at);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** The paths of every artefact a report names, wherever in its cases and steps. */
function artefactPaths(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) artefactPaths(v, out);
  else if (typeof value === 'object' && value !== null)
    for (const [key, v] of Object.entries(value)) {
      if (key === 'artefacts' && Array.isArray(v))
        for (const a of v)
          if (typeof (a as { path?: unknown }).path === 'string') out.push((a as { path: string }).path);
      artefactPaths(v, out);
    }
  return out;
}
