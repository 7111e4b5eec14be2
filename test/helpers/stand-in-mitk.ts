// A stand-in for the MITK Workbench program, for tests of `--launch`: it reads the preferences
// override it is started with, as MITK does, and serves the reference workbench on that port
// with that token. With STAND_IN_LOG set, it appends each port it serves to that file.
import { chmod, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './cohort.js';

const main = join(root, 'src', 'cli', 'main.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const STAND_IN = `
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const i = process.argv.indexOf('--MITK.preferences-override');
const xml = fs.readFileSync(process.argv[i + 1].slice(1), 'utf8');
const port = /name="port" value="(\\d+)"/.exec(xml)[1];
const token = /name="apiToken" value="([^"]*)"/.exec(xml)[1];
if (process.env.STAND_IN_LOG) fs.appendFileSync(process.env.STAND_IN_LOG, port + '\\n');
const child = spawn(process.execPath, ['--import', ${JSON.stringify(tsx)}, ${JSON.stringify(main)}, 'serve', '--port', port, '--token', token], { stdio: 'inherit' });
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code) => process.exit(code ?? 0));
`;

/** Writes the stand-in as `<dir>/MitkWorkbench` and returns its path. */
export async function standInMitk(dir: string): Promise<string> {
  const program = join(dir, 'MitkWorkbench');
  await writeFile(program, `#!${process.execPath}\n${STAND_IN}`);
  await chmod(program, 0o755);
  return program;
}
