// docs/ui.md, the guide of `wbplay ui`: each shell command it shows runs here as written, in a
// fresh folder with the repository's playbooks; a page command is started, its page and first
// run checked, and stopped. A command the guide gains without a check here fails the first
// test. The README's command table names the command and links the guide.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root, spawnWbplay, wbplay } from '../helpers/cohort.js';
import { startTestWorkbench, type TestWorkbench } from '../helpers/workbench.js';

let dir = '';
const workbenches: TestWorkbench[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-ui-guide-'));
  await cp(join(root, 'playbooks'), join(dir, 'playbooks'), { recursive: true });
});

after(async () => {
  for (const wb of workbenches) await wb.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The lines of the guide's ```sh blocks, without their comments. */
async function guideCommands(): Promise<string[]> {
  const guide = await readFile(join(root, 'docs', 'ui.md'), 'utf8');
  const lines: string[] = [];
  for (const [, block] of guide.matchAll(/```sh\n([\s\S]*?)```/g))
    for (const line of block!.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command !== '') lines.push(command);
    }
  return lines;
}

/** `[NAME=value ...] npx wbplay args...` as environment and arguments; the workbench of port 8080 is `url`. */
function words(command: string, url?: string): { env: Record<string, string>; args: string[] } {
  const env: Record<string, string> = {};
  const all = command.split(/\s+/).map((w) => (url ? w.replace('http://localhost:8080', url) : w));
  while (/^[A-Z_]+=/.test(all[0] ?? '')) {
    const word = all.shift()!;
    env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  }
  assert.deepEqual(all.splice(0, 2), ['npx', 'wbplay'], command);
  return { env, args: all };
}

/** Starts a page command, waits for its first run, checks the page and its state, and stops it. */
async function servesPage(command: string, url?: string, extraEnv: Record<string, string> = {}): Promise<void> {
  const { env, args } = words(command, url);
  const port = args.indexOf('--port');
  if (port >= 0) args[port + 1] = '0';
  const child = spawnWbplay(args, dir, { ...env, ...extraEnv });
  let out = '';
  try {
    const page = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const serving = /wbplay ui: serving (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (serving && /wbplay ui: run 1: /.test(out)) resolve(serving[1]!);
      });
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${out}`)));
    });
    assert.match(out, /wbplay ui: run 1: passed/, `${command}\n${out}`);
    const html = await (await fetch(page)).text();
    assert.match(html, /<title>wbplay ui<\/title>/);
    if (url) assert.doesNotMatch(out, /embedded reference workbench/, 'it ran on the workbench given');
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
}

async function workbench(token?: string): Promise<TestWorkbench> {
  const wb = await startTestWorkbench(token ? { token } : {});
  workbenches.push(wb);
  return wb;
}

const checks = new Map<string, (command: string) => Promise<void>>([
  [
    'npx wbplay demo-data wbplay-out/demo',
    async (command) => {
      const result = await wbplay(words(command).args, dir);
      assert.equal(result.code, 0, result.stderr);
    },
  ],
  ['npx wbplay ui playbooks/quickstart.yaml', (command) => servesPage(`${command} --no-open`)],
  [
    'WORKBENCH_URL=http://localhost:8080 npx wbplay ui playbooks/quickstart.yaml --no-open',
    async (command) => servesPage(command, (await workbench()).url),
  ],
  [
    'npx wbplay ui playbooks/quickstart.yaml --url http://localhost:8080 --token-env MITK_TOKEN --port 8800 --no-open',
    async (command) => servesPage(command, (await workbench('from-mitk')).url, { MITK_TOKEN: 'from-mitk' }),
  ],
]);

test('every shell command of the guide has a check here', async () => {
  assert.deepEqual(
    (await guideCommands()).filter((c) => !checks.has(c)),
    [],
    'commands of docs/ui.md that no test runs',
  );
});

test("the guide's commands run as written, in the order shown", async () => {
  for (const command of await guideCommands()) await checks.get(command)?.(command);
});

test("the README's table of commands names wbplay ui and links its guide", async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  assert.match(readme, /^\| `wbplay ui\b[^`]*` \|.*\]\(docs\/ui\.md\)/m);
});
