import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Writes `text` to `name` inside `dir`, making folders on the way; returns the path. */
export async function writeFileIn(dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}
