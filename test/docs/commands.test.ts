// Every shell command a page of docs/ shows runs here as written, page by page, in the order
// shown, in a fresh folder with the repository's playbooks (`npx wbplay` runs this checkout's
// CLI). What stands in for what a user has and a test has not: a reference workbench wanting
// the page's token for MITK at http://localhost:8080, a stand-in MITK program (it serves the
// reference workbench as the preferences override says) for MITK_WORKBENCH, and a free port
// for a server's 8080. A server command is started, asked one question and stopped.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { root, spawnWbplay, wbplay } from '../helpers/cohort.js';
import { docCommands, parseCommand, whileServing, type DocCommand } from '../helpers/doc-commands.js';
import { standInMitk } from '../helpers/stand-in-mitk.js';
import { startTestWorkbench, type TestWorkbench } from '../helpers/workbench.js';

const MITK_URL = 'http://localhost:8080';
const folders: string[] = [];
const workbenches: TestWorkbench[] = [];

after(async () => {
  for (const w of workbenches) await w.stop();
  for (const f of folders) await rm(f, { recursive: true, force: true });
});

async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-docs-commands-'));
  folders.push(dir);
  await cp(join(root, 'playbooks'), join(dir, 'playbooks'), { recursive: true });
  await cp(join(root, 'schemas'), join(dir, 'schemas'), { recursive: true });
  return dir;
}

/** Runs one command of a page in `dir`; what a real user's machine has is stood in for. */
async function run(command: DocCommand, dir: string): Promise<void> {
  const { env: own, args } = parseCommand(command.text);
  const env: Record<string, string> = { ...command.env, ...own };
  if (args[0] === 'serve' || args[0] === 'show-report') {
    await whileServing(
      command.text,
      (a, e) => spawnWbplay(a, dir, { ...command.env, ...e }),
      async (url) => {
        const answer = await fetch(args[0] === 'serve' ? `${url}/api/v1/health` : `${url}/`);
        assert.ok([200, 429, 503].includes(answer.status), `${command.text}: answered ${answer.status}`);
      },
    );
    return;
  }
  if (env.MITK_WORKBENCH !== undefined) env.MITK_WORKBENCH = await standInMitk(dir);
  const url = [env.WORKBENCH_URL, args[args.indexOf('--url') + 1]].find((u) => u === MITK_URL);
  if (url !== undefined) {
    const token = env.WORKBENCH_TOKEN;
    const workbench = await startTestWorkbench(token !== undefined ? { token } : {});
    workbenches.push(workbench);
    if (env.WORKBENCH_URL === MITK_URL) env.WORKBENCH_URL = workbench.url;
    const at = args.indexOf('--url');
    if (at >= 0 && args[at + 1] === MITK_URL) args[at + 1] = workbench.url;
  }
  const result = await wbplay(args, dir, env);
  assert.equal(result.code, 0, `${command.text}\n${result.stdout}\n${result.stderr}`);
}

/**
 * Pages whose commands a test of their own runs: `wbplay ui` and `wbplay review` serve until
 * they are stopped, so test/docs/ui-guide.test.ts and test/docs/review-guide.test.ts run them
 * and stop them once the page answers (the review guide's merge needs reviews given on it).
 */
const OWN_TEST = new Set(['ui.md', 'review.md']);

const pages = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md') && !OWN_TEST.has(f)).sort();

for (const page of pages) {
  const commands = docCommands(await readFile(join(root, 'docs', page), 'utf8'));
  if (commands.length === 0) continue;
  test(`docs/${page}: its ${commands.length} commands run as written, in the order shown`, async () => {
    const dir = await project();
    for (const command of commands) await run(command, dir);
  });
}

/**
 * Commands that need a Slurm cluster (submit.sh, squeue) are shown in ```bash blocks, which
 * test/run/slurm.test.ts runs in order on a real single-node Slurm: only docs/cohorts.md may show
 * them, since no other test would run them.
 */
test('```bash blocks appear on docs/cohorts.md only, whose commands the Slurm test runs', async () => {
  const withBash: string[] = [];
  for (const page of [...(await readdir(join(root, 'docs'))).map((p) => `docs/${p}`), 'README.md']) {
    if (!page.endsWith('.md')) continue;
    if (/^```bash$/m.test(await readFile(join(root, page), 'utf8'))) withBash.push(page);
  }
  assert.deepEqual(withBash, ['docs/cohorts.md']);
  assert.match(
    await readFile(join(root, 'test', 'run', 'slurm.test.ts'), 'utf8'),
    /join\(root, 'docs', 'cohorts\.md'\)/,
  );
});
