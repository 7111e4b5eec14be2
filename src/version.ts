import { readFileSync } from 'node:fs';
import { packageFile } from './package-files.js';

// Read once from package.json so the version in figures and reports can never drift from the
// published one.
export const VERSION: string = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string })
  .version;
