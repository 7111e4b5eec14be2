// What the published package carries: the licence package.json names, a changelog entry for its
// version, schemas and docs, compiled code without source maps that would point at files npm
// leaves out, and, as runtime dependencies, exactly the packages that the built code loads.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { copyFile, cp, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { after, before, test } from 'node:test';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  files: string[];
  bin: { wbplay: string };
  main: string;
  exports: Record<string, { types: string; default: string }>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** A package folder as npm installs it: package.json, schemas, the build in dist/, dependencies beside. */
let pkgDir = '';
let out = '';
let built: string[] = [];

before(async () => {
  pkgDir = await mkdtemp(join(tmpdir(), 'wbplay-build-'));
  out = join(pkgDir, 'dist');
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), out], { cwd: root, stdio: 'ignore' });
  built = (await readdir(out, { recursive: true })).map(String);
  await copyFile(join(root, 'package.json'), join(pkgDir, 'package.json'));
  await cp(join(root, 'schemas'), join(pkgDir, 'schemas'), { recursive: true });
  await symlink(join(root, 'node_modules'), join(pkgDir, 'node_modules'));
});

after(() => rm(pkgDir, { recursive: true, force: true }));

test('the LICENSE file is the licence package.json names, and the changelog has the package version', async () => {
  assert.equal(pkg.license, 'Apache-2.0');
  const license = await readFile(join(root, 'LICENSE'), 'utf8');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  const changelog = await readFile(join(root, 'CHANGELOG.md'), 'utf8');
  assert.match(changelog, new RegExp(`^## ${pkg.version.replace(/\./g, '\\.')}\\b`, 'm'));
});

/** The build's files that package.json's bin, main and exports name, relative to the build folder. */
function entryPoints(): string[] {
  const named = [pkg.bin.wbplay, pkg.main, ...Object.values(pkg.exports).flatMap((e) => [e.types, e.default])];
  return [...new Set(named.map((p) => p.replace(/^\.\//, '').replace(/^dist\//, '')))];
}

test('the build holds every file package.json names, and the bin is a node script', async () => {
  for (const file of entryPoints()) assert.ok(built.includes(file), `${file} is built`);
  assert.match(await readFile(join(out, pkg.bin.wbplay.replace(/^dist\//, '')), 'utf8'), /^#!\/usr\/bin\/env node\n/);
});

test('each export of package.json loads from the build in a fresh process, with what it promises', () => {
  // What a user's `import 'wbplay'` and `import 'wbplay/client'` give, resolved by package.json.
  const names = (specifier: string): string[] =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--input-type=module', '-e', `console.log(JSON.stringify(Object.keys(await import('${specifier}')).sort()))`],
        { cwd: pkgDir, encoding: 'utf8' },
      ),
    ) as string[];
  const main = names('wbplay');
  for (const name of ['VERSION', 'connect', 'loadPlaybook', 'runPlans', 'startReferenceWorkbench'])
    assert.ok(main.includes(name), `wbplay exports ${name}`);
  const client = names('wbplay/client');
  for (const name of ['connect', 'WorkbenchApiError', 'discover'])
    assert.ok(client.includes(name), `wbplay/client exports ${name}`);
  assert.ok(!client.includes('runPlans'), 'wbplay/client is the client alone');
  assert.equal(
    execFileSync(process.execPath, [join(out, pkg.bin.wbplay.replace(/^dist\//, '')), '--version'], {
      encoding: 'utf8',
    }).trim(),
    pkg.version,
  );
});

test('the build that npm publishes holds no source maps', async () => {
  assert.deepEqual(
    built.filter((f) => f.endsWith('.map')),
    [],
  );
  for (const file of built.filter((f) => f.endsWith('.js')))
    assert.doesNotMatch(await readFile(join(out, file), 'utf8'), /sourceMappingURL/, file);
});

/** The packages a piece of compiled code loads: imports, `import()`, `require` and `resolve` of a bare name. */
function loadedPackages(code: string): Set<string> {
  const names = new Set<string>();
  // Comments quote names ('the scale from "Ramp"') that are not loaded: only code counts.
  code = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  // `loadOnFirstUse('pngjs')` is the image codecs' lazy require (image/codec-loader.ts). A
  // `"from"` (or `"/from"`) in quotes is a schema's field in the generated validators, not an import.
  const load =
    /(?:(?<!['"/])\bfrom|\bimport\s*\(|\brequire\s*\(|\bcreateRequire\([^)]*\)\s*\(|\.resolve\s*\(|\bloadOnFirstUse\s*\(|^\s*import)\s*['"]([^'"]+)['"]/gm;
  for (const [, specifier] of code.matchAll(load)) {
    if (specifier!.startsWith('.') || specifier!.startsWith('node:') || builtinModules.includes(specifier!)) continue;
    const parts = specifier!.split('/');
    names.add(specifier!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return names;
}

/** Named in built code but loaded only when running from source: sim/embedded.ts's worker under tsx. */
const FROM_SOURCE_ONLY = ['tsx'];

test('the packages the build loads are exactly the runtime dependencies', async () => {
  const loaded = new Set<string>();
  // What runs is the bundle (package.json's bin, main and exports point into it).
  for (const file of built.filter((f) => f.startsWith(`bundle${sep}`) && f.endsWith('.js')))
    for (const name of loadedPackages(await readFile(join(out, file), 'utf8'))) loaded.add(name);
  const declared = Object.keys(pkg.dependencies).sort();
  for (const name of FROM_SOURCE_ONLY) assert.ok(name in pkg.devDependencies, `${name} is a development tool`);
  assert.deepEqual(
    declared.filter((d) => !loaded.has(d)),
    [],
    'runtime dependencies no built file loads: move them to devDependencies',
  );
  assert.deepEqual(
    [...loaded].filter((l) => !declared.includes(l) && !FROM_SOURCE_ONLY.includes(l)).sort(),
    [],
    'packages the build loads that are not runtime dependencies',
  );
});

test('what counts as loading a package', () => {
  const code = [
    "import { Command } from 'commander';",
    "import '@scope/side-effect/register.js';",
    "const { Resvg } = await import('@resvg/resvg-js');",
    "const eq = require('ajv/dist/runtime/equal').default;",
    "const fonts = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json');",
    "const png = loadOnFirstUse('pngjs');",
    "const yaml = createRequire(import.meta.url)('yaml');",
    "import { join } from 'node:path'; import { readFile } from 'fs'; import x from './x.js';",
    "const format = 'undici';",
    '/** The table takes its scale from "Ramp" (a MITK key, not a package). */',
    "// loaded with import 'prettier' elsewhere",
  ].join('\n');
  assert.deepEqual([...loadedPackages(code)].sort(), [
    '@resvg/resvg-js',
    '@scope/side-effect',
    'ajv',
    'commander',
    'dejavu-fonts-ttf',
    'pngjs',
    'yaml',
  ]);
});

interface PackedFile {
  path: string;
  size: number;
}

/** The files `npm pack` puts in the tarball (dist/ as it is in the working tree). */
function packedFiles(): PackedFile[] {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { files: PackedFile[] }[];
  return packed[0]!.files;
}

test('the packed package holds what runs and what a user reads: no tests, sources, maps or tools', async () => {
  const paths = packedFiles().map((f) => f.path);
  const unwanted = paths.filter(
    (p) =>
      /^(test|bench|scripts|src|examples|node_modules|\.ci)\//.test(p) ||
      p.endsWith('.map') ||
      (p.endsWith('.ts') && !p.endsWith('.d.ts')) ||
      /\.test\.[jt]s$/.test(p),
  );
  assert.deepEqual(unwanted, []);
  // Of the build, the bundle and the type declarations: the compiled modules the bundle was made of stay home.
  assert.deepEqual(
    paths.filter((p) => p.startsWith('dist/') && !p.startsWith('dist/bundle/') && !p.endsWith('.d.ts')),
    [],
  );
  for (const needed of [
    'package.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    'schemas/playbook.schema.json',
    'schemas/config.schema.json',
    'schemas/report.schema.json',
    'schemas/layout.schema.json',
  ])
    assert.ok(paths.includes(needed), `${needed} is packed`);
  // The docs a user needs beside the package: every page of docs/ and nothing else of that folder.
  const docs = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  assert.ok(docs.includes('docs/README.md'), 'docs/ has its index');
  assert.deepEqual(paths.filter((p) => p.startsWith('docs/')).sort(), docs.sort());
});
