#!/usr/bin/env node
// Node 20's test runner takes no globs, so the test files are listed here; every file under
// test/ that ends in .test.ts runs, so a new test can never be silently left out.
import { readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const filter = process.argv.slice(2);
const files = readdirSync('test', { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filter.length === 0 || filter.some((word) => f.includes(word)))
  .map((f) => join('test', f))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files];
const child = spawn(process.execPath, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
