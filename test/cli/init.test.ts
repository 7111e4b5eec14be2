// `wbplay init` starts a project that works as written: its playbook validates and runs (the
// first run writes the golden, a CI run then passes), its schema lines name the schemas an npm
// install brings, its workflow runs wbplay commands that exist; and it never overwrites a file.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { root, wbplay } from '../helpers/cohort.js';

test('init writes a starter project that validates, runs, and passes again in CI', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-init-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const init = await wbplay(['init'], dir);
  assert.equal(init.code, 0, init.stderr);
  for (const file of ['playbooks/example.yaml', 'wbplay.config.yaml', '.gitignore', '.github/workflows/wbplay.yml'])
    assert.match(init.stdout, new RegExp(`wrote ${file.replace(/\./g, '\\.')}`));

  // The schema lines resolve once wbplay is installed into the project.
  await mkdir(join(dir, 'node_modules'));
  await symlink(root, join(dir, 'node_modules', 'wbplay'));
  for (const file of ['playbooks/example.yaml', 'wbplay.config.yaml']) {
    const first = (await readFile(join(dir, file), 'utf8')).split('\n')[0] ?? '';
    const schema = /^# yaml-language-server: \$schema=(.+)$/.exec(first)?.[1];
    assert.ok(schema, `${file} starts with its schema line`);
    assert.ok(existsSync(resolve(dirname(join(dir, file)), schema)), `${file}: ${schema} exists`);
  }
  assert.match(await readFile(join(dir, '.gitignore'), 'utf8'), /^wbplay-out\/$/m);

  const workflow = parse(await readFile(join(dir, '.github/workflows/wbplay.yml'), 'utf8')) as {
    jobs: Record<string, { steps: { run?: string }[] }>;
  };
  const commands = Object.values(workflow.jobs).flatMap((j) =>
    j.steps.map((s) => s.run).filter((r): r is string => r !== undefined && r.startsWith('npx wbplay ')),
  );
  assert.ok(commands.length >= 3);
  for (const command of commands) {
    const args = command.slice('npx wbplay '.length).split(' ');
    const result = await wbplay(args, dir, { CI: 'true' });
    // In CI the goldens are committed ones: the first CI run fails for want of them, as it should.
    const expected = args[0] === 'run' ? 1 : 0;
    assert.equal(result.code, expected, `${command}\n${result.stderr}`);
  }
  const first = await wbplay(['run', 'playbooks', '--reporter', 'line'], dir);
  assert.equal(first.code, 0, first.stderr);
  assert.ok(existsSync(join(dir, 'playbooks', 'goldens', 'example-axial.png')), 'the first run writes the golden');
  const ci = await wbplay(['run', 'playbooks', '--reporter', 'github,junit'], dir, { CI: 'true' });
  assert.equal(ci.code, 0, ci.stderr);
  assert.ok(existsSync(join(dir, 'wbplay-out', 'junit.xml')));
});

test('init overwrites nothing: with any of its files there it writes none and exits 2', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-init-taken-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, '.gitignore'), 'mine\n');
  const result = await wbplay(['init'], dir);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /init writes no file, since \.gitignore exists already/);
  assert.equal(await readFile(join(dir, '.gitignore'), 'utf8'), 'mine\n');
  assert.ok(!existsSync(join(dir, 'wbplay.config.yaml')) && !existsSync(join(dir, 'playbooks')));
});

test("a new project's first hour: init, validate names the demo data, then init's own next commands run", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-init-first-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const init = await wbplay(['init'], dir);
  assert.equal(init.code, 0, init.stderr);
  // Validating before the demo data exists says how to make it.
  const early = await wbplay(['validate', 'playbooks'], dir);
  assert.equal(early.code, 2);
  assert.match(early.stderr, /error\[FILE_NOT_FOUND\]/);
  assert.match(early.stderr, /make it with: npx wbplay demo-data wbplay-out\/demo/);
  // The commands init prints next, as written.
  const next = /^next: (.+?) \(/m.exec(init.stdout)?.[1];
  assert.ok(next, init.stdout);
  for (const command of next.split(' && ')) {
    assert.match(command, /^npx wbplay /);
    const result = await wbplay(command.slice('npx wbplay '.length).split(' '), dir);
    assert.equal(result.code, 0, `${command}\n${result.stderr}`);
  }
  const validate = await wbplay(['validate', 'playbooks'], dir);
  assert.equal(validate.code, 0, validate.stderr);
  const again = await wbplay(['run', 'playbooks'], dir);
  assert.equal(again.code, 0, again.stderr);
});
