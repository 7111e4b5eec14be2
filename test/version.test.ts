import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { VERSION } from '../src/index.js';
import { main } from '../src/cli/main.js';

test('the exported version is the package version', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  assert.equal(VERSION, pkg.version);
});

test('an unknown command is a usage error (exit 2)', async () => {
  const stderr = process.stderr.write;
  process.stderr.write = () => true;
  try {
    assert.equal(await main(['no-such-command']), 2);
  } finally {
    process.stderr.write = stderr;
  }
});
