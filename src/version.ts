import { readFileSync } from 'node:fs';

// Read once from package.json so the version in figures and reports can never drift from the
// published one; the file sits one level above both src/ and dist/.
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
