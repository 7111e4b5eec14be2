// Exit codes and errors of every command: one set of codes, every error drawn as diagnostics are.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CommandError, describeError, EXIT, reportError } from '../../src/cli/errors.js';
import { ReportError } from '../../src/report/report-error.js';
import { DEFAULT_RETRY } from '../../src/run/retry.js';
import { DEFAULT_STEP_TIMEOUT_MS } from '../../src/run/runner.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src', 'cli', 'main.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let dir = '';

function wbplay(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, main, ...args],
      { cwd: dir, env: { PATH: process.env.PATH, ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

function capture(isTTY: boolean): { stream: { isTTY: boolean; write(text: string): boolean }; text: () => string } {
  let text = '';
  return { stream: { isTTY, write: (chunk: string) => ((text += chunk), true) }, text: () => text };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-errors-'));
  await writeFile(join(dir, 'p.yaml'), 'version: 1\nsteps:\n  - update\n');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the exit codes are the ones the command-line reference promises', async () => {
  const reference = await readFile(join(root, 'docs', 'cli.md'), 'utf8');
  const promised = [...reference.matchAll(/^\| \*\*(\d+)\*\* \|/gm)].map((m) => Number(m[1]));
  assert.deepEqual(promised, [EXIT.ok, EXIT.failed, EXIT.usage, EXIT.incomplete, EXIT.interrupted, EXIT.terminated]);
  assert.deepEqual(EXIT, { ok: 0, failed: 1, usage: 2, incomplete: 3, interrupted: 130, terminated: 143 });
});

test('an error is drawn as a diagnostic: its code, its message, its hint', () => {
  const out = capture(false);
  const code = reportError(
    new CommandError('BAD_OPTION', '--workers must be a whole number of at least 1', 'give a number such as 2'),
    { stream: out.stream, env: {} },
  );
  assert.equal(code, EXIT.usage);
  assert.equal(
    out.text(),
    'error[BAD_OPTION]: --workers must be a whole number of at least 1\n  = hint: give a number such as 2\n',
  );
});

test("errors of lower layers keep their own code and hint; the exit code is the caller's unless the error names one", () => {
  const out = capture(false);
  const code = reportError(
    new ReportError('SHARDS_OVERLAP', 'case a is in two shards', 'merge the shards of one run'),
    { code: 'MERGE_FAILED', exitCode: EXIT.usage, stream: out.stream, env: {} },
  );
  assert.equal(code, EXIT.usage);
  assert.equal(out.text(), 'error[SHARDS_OVERLAP]: case a is in two shards\n  = hint: merge the shards of one run\n');

  const plain = capture(false);
  assert.equal(reportError(new Error('boom'), { code: 'RUN_FAILED', stream: plain.stream, env: {} }), EXIT.failed);
  assert.equal(plain.text(), 'error[RUN_FAILED]: boom\n');
  assert.equal(
    reportError(new CommandError('INTERNAL', 'x', undefined, EXIT.failed), {
      exitCode: EXIT.usage,
      stream: plain.stream,
      env: {},
    }),
    EXIT.failed,
  );

  assert.deepEqual(describeError('not an Error', 'INTERNAL'), { code: 'INTERNAL', message: 'not an Error' });
  assert.deepEqual(describeError(Object.assign(new Error('gone'), { code: 'ENOENT', hint: '' }), 'INTERNAL'), {
    code: 'ENOENT',
    message: 'gone',
  });
});

test('an error is coloured by the one colour decision of its stream', () => {
  const terminal = capture(true);
  reportError(new CommandError('USAGE', 'x'), { stream: terminal.stream, env: {} });
  assert.ok(terminal.text().startsWith('\u001b[1;31merror[USAGE]'), JSON.stringify(terminal.text()));
  const noColor = capture(true);
  reportError(new CommandError('USAGE', 'x'), { stream: noColor.stream, env: { NO_COLOR: '1' } });
  assert.equal(noColor.text(), 'error[USAGE]: x\n');
  const forced = capture(false);
  reportError(new CommandError('USAGE', 'x'), { stream: forced.stream, env: { FORCE_COLOR: '1' } });
  assert.ok(forced.text().includes('\u001b['));
});

test("a command's errors, commander's included, look the same, exit 2, and FORCE_COLOR colours them through a pipe", async () => {
  const workers = await wbplay(['run', 'p.yaml', '--workers', '0']);
  assert.equal(workers.code, EXIT.usage);
  assert.equal(workers.stderr, "error[BAD_OPTION]: --workers must be a whole number of at least 1, got '0'\n");

  const unknown = await wbplay(['run', 'p.yaml', '--bogus']);
  assert.equal(unknown.code, EXIT.usage);
  assert.match(unknown.stderr, /^error\[USAGE\]: unknown option '--bogus'\n/);

  const grep = await wbplay(['run', 'p.yaml', '--grep', 'matches-nothing']);
  assert.equal(grep.code, EXIT.usage);
  assert.match(grep.stderr, /^error\[NO_CASES\]: no case matches --grep\/--tag\n {2}= hint: /m);

  const coloured = await wbplay(['run', 'p.yaml', '--workers', '0'], { FORCE_COLOR: '1' });
  assert.equal(coloured.code, EXIT.usage);
  assert.ok(coloured.stderr.startsWith('\u001b[1;31merror[BAD_OPTION]'), JSON.stringify(coloured.stderr));
  const invalid = await wbplay(['validate', 'nope.yaml'], { FORCE_COLOR: '1' });
  assert.ok(invalid.stderr.startsWith('\u001b[1;31merror[READ_ERROR]'), JSON.stringify(invalid.stderr));
});

test("wbplay run --help states the runner's own retry and timeout defaults", async () => {
  const help = await wbplay(['run', '--help']);
  assert.equal(help.code, EXIT.ok);
  const flat = help.stdout.replace(/\s+/g, ' ');
  assert.match(flat, new RegExp(`--retries <n> .*?\\(default ${DEFAULT_RETRY.retries}\\)`));
  assert.match(flat, new RegExp(`--timeout <ms> .*?\\(default ${DEFAULT_STEP_TIMEOUT_MS}\\)`));
});
