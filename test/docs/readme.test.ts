// Every shell command the README shows is run here, as written, in a fresh folder with the
// repository's playbooks (`npx wbplay` runs this checkout's CLI). A command the README gains
// without a runner below fails the first test, so the docs cannot rot.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { root, wbplay } from '../helpers/cohort.js';
import { docCommands, parseCommand } from '../helpers/doc-commands.js';
import { startTestWorkbench, type TestWorkbench } from '../helpers/workbench.js';

/** Run by CI itself (`.ci/run`) and by every developer: not again here. */
const RUN_ELSEWHERE = ['npm ci && npm run quickstart', 'npm ci && npm test'];

type Runner = (command: string) => Promise<void>;
const runners = new Map<string, Runner>();
let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-readme-'));
  await cp(join(root, 'playbooks'), join(dir, 'playbooks'), { recursive: true });
  await cp(join(root, 'schemas'), join(dir, 'schemas'), { recursive: true });
  // What the README's first command (npm run quickstart) leaves, which later commands read.
  for (const args of [
    ['demo-data', 'wbplay-out/demo'],
    ['run', 'playbooks/quickstart.yaml', '--out', 'wbplay-out/quickstart'],
  ]) {
    const result = await wbplay(args, dir);
    assert.equal(result.code, 0, `${args.join(' ')}\n${result.stderr}`);
  }
});

after(async () => {
  await workbench?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The README's shell commands. */
async function readmeCommands(): Promise<string[]> {
  return docCommands(await readFile(join(root, 'README.md'), 'utf8')).map((c) => c.text);
}

async function runs(command: string): Promise<void> {
  const { env, args } = parseCommand(command);
  const result = await wbplay(args, dir, env);
  assert.equal(result.code, 0, `${command}\n${result.stdout}\n${result.stderr}`);
}

runners.set('npx wbplay demo-data data/cohort --cohort 24', runs);
runners.set(
  'WBPLAY_COHORT=data/cohort npx wbplay run playbooks/cohort.yaml --workers 2 --out out/cohort',
  async (command) => {
    await runs(command);
    // The cohort's paths were read from the working folder, and its figures landed under --out.
    await stat(join(dir, 'out', 'cohort', 'contact-sheet.png'));
  },
);

// "In your project": the package as npm publishes it, installed into a new project, run with npx.
let project = '';
let workbench: TestWorkbench | undefined;

/**
 * What `npm install wbplay` leaves: the files `npm pack` ships (a fresh build for dist/) in
 * node_modules/wbplay, its dependencies beside it, and the `wbplay` bin linked into .bin.
 */
runners.set('npm install --save-dev --save-exact wbplay', async () => {
  project = join(dir, 'my-project');
  const pkgDir = join(project, 'node_modules', 'wbplay');
  await mkdir(pkgDir, { recursive: true });
  await writeFile(join(project, 'package.json'), '{ "name": "my-project", "private": true }\n');
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { files: { path: string }[] }[];
  for (const { path } of packed[0]!.files.filter((f) => !f.path.startsWith('dist/'))) {
    await mkdir(dirname(join(pkgDir, path)), { recursive: true });
    await cp(join(root, path), join(pkgDir, path));
  }
  // The build as npm ships it: the bundle and the type declarations, not the modules it was made of.
  const dist = join(pkgDir, 'dist');
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), dist], { cwd: root, stdio: 'ignore' });
  for (const file of await readdir(dist, { recursive: true }))
    if (String(file).endsWith('.js') && !String(file).startsWith(`bundle${sep}`)) await rm(join(dist, String(file)));
  await symlink(join(root, 'node_modules'), join(pkgDir, 'node_modules'));
  await mkdir(join(project, 'node_modules', '.bin'));
  const { bin } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { bin: { wbplay: string } };
  await chmod(join(pkgDir, bin.wbplay), 0o755); // as npm does for a package's bin
  await symlink(join('..', 'wbplay', bin.wbplay), join(project, 'node_modules', '.bin', 'wbplay'));
});

/** `npx wbplay …` in the project: npx finds the installed bin, as it does for a user. */
function npx(command: string, env: Record<string, string> = {}): Promise<void> {
  const { env: own, args } = parseCommand(command);
  return new Promise((resolve, reject) => {
    execFile(
      'npx',
      ['--no-install', 'wbplay', ...args],
      { cwd: project, env: { PATH: process.env.PATH, HOME: project, ...own, ...env } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${command}\n${stdout}\n${stderr}`));
        else resolve();
      },
    );
  });
}

runners.set('npx wbplay init', (c) => npx(c));
runners.set('npx wbplay demo-data wbplay-out/demo', (c) => npx(c));
runners.set('npx wbplay run playbooks', async (c) => {
  await npx(c);
  await stat(join(project, 'playbooks', 'goldens', 'example-axial.png'));
});
/** A reference workbench that wants the README's token stands in for MITK on port 8080. */
runners.set('WORKBENCH_URL=http://localhost:8080 WORKBENCH_TOKEN=s3cret npx wbplay run playbooks', async (c) => {
  workbench = await startTestWorkbench({ token: 's3cret' });
  await npx(c, { WORKBENCH_URL: workbench.url });
  await assert.rejects(
    npx(c, { WORKBENCH_URL: workbench.url, WORKBENCH_TOKEN: 'wrong' }),
    /came from the environment variable WORKBENCH_TOKEN/,
  );
});
test('every shell command in the README has a runner here', async () => {
  const commands = (await readmeCommands()).filter((c) => !RUN_ELSEWHERE.includes(c));
  const missing = commands.filter((c) => !runners.has(c));
  assert.deepEqual(missing, [], 'README commands that no test runs');
});

test('the README shows the quickstart playbook as it is', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const shown = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.equal(shown, await readFile(join(root, 'playbooks', 'quickstart.yaml'), 'utf8'));
});

test('the README is a front page: at most 200 lines, and every command of wbplay is in its table', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length <= 200, `the README has ${readme.split('\n').length} lines`);
  const { commandsFor } = await import('../../src/cli/commands.js');
  const { Command } = await import('commander');
  const program = new Command('wbplay');
  for (const register of await commandsFor([])) register(program, () => undefined);
  for (const command of program.commands)
    assert.match(
      readme,
      new RegExp(`^\\| \`wbplay ${command.name()}[ \`]`, 'm'),
      `wbplay ${command.name()} is in the table`,
    );
});

test("the README's commands run as written, in the order shown", async () => {
  for (const command of await readmeCommands()) {
    const runner = runners.get(command);
    if (runner) await runner(command);
  }
});
