import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Where a merged folder's captures lie: a lookup of a capture the folder does not hold. `merge-reports` leaves each capture in its shard's folder
 * and names it there in the merged report (`../shard-1/study-001/axial.png`), so a capture the
 * playbook names in the merged folder (`${out}/study-001/axial.png`) is the one the report names
 * with the same path below a shard's folder. Undefined when the folder holds no merged report,
 * the path lies outside it, or no capture (or more than one) matches.
 */
export function shardCaptures(outputDir: string): (file: string) => Promise<string | undefined> {
  // The report is read once, on the first capture missing from the folder.
  let outside: Promise<string[]> | undefined;
  return async (file) => {
    const inside = relative(outputDir, file);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
    // No merged report (or none that parses) names nothing elsewhere.
    outside ??= readFile(resolve(outputDir, 'report.json'), 'utf8')
      .then((text) =>
        artefactPaths(JSON.parse(text) as unknown)
          .map((path) => resolve(outputDir, path))
          .filter((at) => relative(outputDir, at).startsWith('..')),
      )
      .catch((): string[] => []);
    const found = new Set((await outside).filter((at) => at.endsWith(sep + inside)));
    return found.size === 1 ? [...found][0] : undefined;
  };
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
