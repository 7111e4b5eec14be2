// The validate, plan and schema commands as a user runs them: a real process, real files.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src', 'cli', 'main.ts');
// The TypeScript loader, by its own path: the commands run in a temporary folder.
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

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-cli-'));
  await writeFile(join(dir, 'ct.nrrd'), '');
  await writeFile(
    join(dir, 'good.yaml'),
    'version: 1\nname: Good\nvars:\n  out: shots\nsteps:\n  - load: { file: ct.nrrd, as: ct }\n  - screenshot: { of: stdmulti/axial, save: "${out}/a.png" }\n',
  );
  await writeFile(
    join(dir, 'bad.yaml'),
    'version: 1\nsteps:\n  - load: { file: ct.nrrd, as: ct }\n  - set: { node: ct, opacity: 7 }\n  - screnshot: { of: app }\n',
  );
  await writeFile(join(dir, 'later.yaml'), 'version: 1\nsteps:\n  - load: { file: data/not-yet.nrrd }\n');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('validate: OK per valid file, every error of every invalid file, exit 2, no colour without a terminal', async () => {
  const r = await wbplay(['validate', 'good.yaml', 'bad.yaml']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, 'OK good.yaml\n');
  assert.match(r.stderr, /error\[OUT_OF_RANGE\]: `opacity` must be between 0 and 1, not 7\n +--> bad\.yaml:4:31\n/);
  assert.match(
    r.stderr,
    /error\[UNKNOWN_STEP\]: unknown step kind `screnshot`[\s\S]*hint: did you mean `screenshot`\?/,
  );
  assert.match(r.stderr, /\n2 errors\n$/);
  assert.ok(!r.stderr.includes('\u001b['), 'no colour codes');
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

test('validate: --no-check-files accepts inputs that do not exist yet; a missing playbook is exit 2 without a stack trace', async () => {
  assert.equal((await wbplay(['validate', 'later.yaml'])).code, 2);
  const ok = await wbplay(['validate', '--no-check-files', 'later.yaml']);
  assert.deepEqual([ok.code, ok.stdout], [0, 'OK later.yaml\n']);
  const missing = await wbplay(['validate', 'nope.yaml']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /error\[READ_ERROR\]: cannot read the playbook `nope\.yaml`/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /);
});

test('plan: numbered steps with file:line and resolved values; --var overrides; --json is the plan', async () => {
  const text = await wbplay(['plan', 'good.yaml', '--var', 'out=figures']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^Plan: Good\n/);
  assert.match(text.stdout, /Case main \(2 steps\)\n {2}1\. good\.yaml:6 {2}load ct\.nrrd as ct \(auto\)\n/);
  assert.ok(text.stdout.includes(`save=${join(dir, 'figures', 'a.png')}`));
  const json = await wbplay(['plan', 'good.yaml', '--json']);
  const plan = JSON.parse(json.stdout) as {
    version: number;
    cases: { steps: { kind: string; span: { line: number } }[] }[];
  };
  assert.equal(plan.version, 1);
  assert.deepEqual(
    plan.cases[0]?.steps.map((s) => [s.kind, s.span.line]),
    [
      ['load', 6],
      ['screenshot', 7],
    ],
  );
  const bad = await wbplay(['plan', 'bad.yaml']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, '');
});

test('a malformed --var is a usage error (exit 2); schema prints the published schema', async () => {
  const r = await wbplay(['validate', 'good.yaml', '--var', 'no-equals-sign']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /error\[BAD_VAR\]: `--var no-equals-sign` is not of the form name=value/);
  const schema = await wbplay(['schema']);
  assert.equal(schema.code, 0);
  assert.equal(schema.stdout, await readFile(join(root, 'schemas', 'playbook.schema.json'), 'utf8'));
});
