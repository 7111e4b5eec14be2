import { readFile } from 'node:fs/promises';
import { packageFile } from '../package-files.js';
import type { RegisterCommand } from './command.js';
import { EXIT } from './errors.js';

export const registerSchema: RegisterCommand = (program, setExitCode) => {
  program
    .command('schema')
    .description('print the playbook JSON Schema (2020-12), for editors and other tools')
    .action(async () => {
      // The published file is generated from the step registry and checked against it by a test.
      const text = await readFile(packageFile('schemas/playbook.schema.json'), 'utf8');
      process.stdout.write(text);
      setExitCode(EXIT.ok);
    });
};
