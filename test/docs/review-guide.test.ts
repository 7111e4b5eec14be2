// docs/review.md, the guide of `wbplay review`: each shell command it shows runs here as
// written, in the order shown, in a fresh folder with the repository's playbooks. The page
// command is started, a verdict given on its page in Chromium by the key the guide names, and
// stopped; that is how the two reviewers' files the merge command names are made (Ana's, then
// Ben's review of the same folder). A command the guide gains without a check here fails.
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { docCommands, parseCommand } from '../helpers/doc-commands.js';
import { root, spawnWbplay, wbplay } from '../helpers/cohort.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-review-guide-'));
  await cp(join(root, 'playbooks'), join(dir, 'playbooks'), { recursive: true });
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts the page command, presses `keys` on its first case in Chromium, waits for the save, stops it. */
async function review(args: string[], keys: string[]): Promise<string> {
  const child = spawnWbplay([...args, '--no-open'], dir);
  let out = '';
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /at (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C to stop\)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`wbplay ${args.join(' ')} exited with ${code}:\n${out}`)));
    });
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator('body[data-ready="true"]').waitFor();
    for (const key of keys) {
      await page.keyboard.press(key);
      await page.locator('#saved', { hasText: /^Saved / }).waitFor();
    }
  } finally {
    await browser.close();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
  return out;
}

test('docs/review.md: its commands run as written, in the order shown', async () => {
  const guide = await readFile(join(root, 'docs', 'review.md'), 'utf8');
  const commands = docCommands(guide).map((c) => c.text);
  assert.deepEqual(commands, [
    'npx wbplay demo-data wbplay-out/demo-cohort --cohort 4',
    'npx wbplay run playbooks/cohort.yaml --out wbplay-out/cohort',
    'npx wbplay review wbplay-out/cohort --reviewer Ana',
    'npx wbplay review wbplay-out/cohort --merge ana/review.json ben/review.json',
  ]);
  for (const command of commands.slice(0, 2)) {
    const result = await wbplay(parseCommand(command).args, dir);
    assert.equal(result.code, 0, `${command}\n${result.stdout}\n${result.stderr}`);
  }
  const folder = join(dir, 'wbplay-out', 'cohort');
  const printed = await review(parseCommand(commands[2]!).args, ['p']);
  assert.match(printed, /^Reviewing 4 cases of wbplay-out\/cohort as Ana at http:/m);
  await mkdir(join(dir, 'ana'));
  await rename(join(folder, 'review.json'), join(dir, 'ana', 'review.json'));
  // Ben's review of the same folder, as the guide describes: his first case, failed.
  await review(['review', 'wbplay-out/cohort', '--reviewer', 'Ben'], ['f']);
  await mkdir(join(dir, 'ben'));
  await rename(join(folder, 'review.json'), join(dir, 'ben', 'review.json'));

  const merged = await wbplay(parseCommand(commands[3]!).args, dir);
  assert.equal(merged.code, 0, merged.stderr);
  assert.equal(
    merged.stdout,
    [
      'merged ana/review.json and ben/review.json: 1 case reviewed',
      `  ${join('wbplay-out', 'cohort', 'review.json')}`,
      `  ${join('wbplay-out', 'cohort', 'review.csv')}`,
      '1 disagreement:',
      '  Cohort screenshots · study-001: Ana pass, Ben fail',
      '',
    ].join('\n'),
  );
});

test('the README names the command and links the guide', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  assert.match(readme, /\| `wbplay review \[out\]` \|.*\(docs\/review\.md\)/);
  assert.match(readme, /!\[[^\]]+\]\(docs\/review\.png\)/);
});
