// What the published package carries: the licence package.json names, a changelog entry for its
// version, schemas, and compiled code without source maps that would point at files npm leaves out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  files: string[];
};

test('the LICENSE file is the licence package.json names, and the changelog has the package version', async () => {
  assert.equal(pkg.license, 'Apache-2.0');
  const license = await readFile(join(root, 'LICENSE'), 'utf8');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  const changelog = await readFile(join(root, 'CHANGELOG.md'), 'utf8');
  assert.match(changelog, new RegExp(`^## ${pkg.version.replace(/\./g, '\\.')}\\b`, 'm'));
  assert.deepEqual(pkg.files.sort(), ['dist', 'schemas']);
});

test('the build that npm publishes holds no source maps', async (t) => {
  const out = await mkdtemp(join(tmpdir(), 'wbplay-build-'));
  t.after(() => rm(out, { recursive: true, force: true }));
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', out],
    { cwd: root },
  );
  const files = (await readdir(out, { recursive: true })).map(String);
  assert.ok(files.includes(join('cli', 'main.js')));
  assert.deepEqual(
    files.filter((f) => f.endsWith('.map')),
    [],
  );
  assert.doesNotMatch(await readFile(join(out, 'cli', 'main.js'), 'utf8'), /sourceMappingURL/);
});
