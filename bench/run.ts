// Runs every bench/*.bench.ts (or those whose name contains an argument) one after another.
// Each benchmark prints its own figures as ratios against a baseline measured in this process.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filter.length === 0 || filter.some((w) => f.includes(w)))
  .sort();
for (const file of files) {
  console.log(`\n## ${file.replace(/\.bench\.ts$/, '')}`);
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: () => Promise<void> };
  await mod.default();
}
