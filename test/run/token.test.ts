// A token goes through every reporter, the trace, and the error paths (401, 403, a workbench
// that is gone) and shows in no byte of any output: files, stdout, stderr.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeCohort, wbplay, type Cohort } from '../helpers/cohort.js';
import { deadPort } from '../helpers/net.js';
import { startTestWorkbench } from '../helpers/workbench.js';

const TOKEN = 'tok-7a1c9e-never-shown';
let dir = '';
let cohort: Cohort;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-token-'));
  cohort = await makeCohort(dir, 2);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file below `root`, read as bytes. */
async function everyFile(root: string): Promise<Array<{ path: string; bytes: Buffer }>> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out.push({ path: join(entry.parentPath, entry.name), bytes: await readFile(join(entry.parentPath, entry.name)) });
  }
  return out;
}

async function assertNowhere(out: string, streams: string): Promise<number> {
  assert.ok(!streams.includes(TOKEN), 'stdout or stderr shows the token');
  const files = await everyFile(out).catch(() => []);
  for (const { path, bytes } of files) assert.equal(bytes.indexOf(TOKEN), -1, `${path} holds the token`);
  return files.length;
}

test('a run with failures through every reporter and --trace writes the token nowhere', async (t) => {
  const wb = await startTestWorkbench({ token: TOKEN, allowedDirs: [cohort.data] });
  t.after(() => wb.stop());
  const playbook = join(cohort.dir, 'token.yaml');
  await writeFile(
    playbook,
    [
      'version: 1',
      'name: Token',
      'foreach:',
      '  csv: data/studies.csv',
      'steps:',
      '  - load: { file: "${study.path}/ct.nrrd", as: ct, transfer: file-reference }',
      '  - screenshot: { of: stdmulti/axial, save: "${out}/${study.name}/axial.png" }',
      // Outside the allowed folder: refused as PATH_NOT_ALLOWED (403 from a workbench).
      '  - load: { file: "outside.nrrd", transfer: file-reference }',
      '',
    ].join('\n'),
  );
  await writeFile(join(dir, 'outside.nrrd'), await readFile(join(cohort.data, cohort.studies[0]!.path, 'ct.nrrd')));
  const out = join(dir, 'all-reporters');
  const result = await wbplay(
    [
      'run',
      playbook,
      '--url',
      wb.url,
      '--token-env',
      'WB_TOKEN',
      '--trace',
      '--out',
      out,
      '--reporter',
      'line,json,junit,html',
    ],
    cohort.dir,
    { WB_TOKEN: TOKEN },
  );
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout + result.stderr, /PATH_NOT_ALLOWED/);
  const files = await assertNowhere(out, result.stdout + result.stderr);
  assert.ok(files >= 6, `${files} files written`);
  assert.ok((await readdir(out, { recursive: true })).some((f) => String(f).endsWith('trace.jsonl')));
});

test('a refused token, and a workbench that is gone, are reported without the token', async (t) => {
  const wb = await startTestWorkbench({ token: 'the-real-token' });
  t.after(() => wb.stop());
  const refused = await wbplay(
    [
      'run',
      cohort.playbook,
      '--url',
      wb.url,
      '--token-env',
      'WB_TOKEN',
      '--out',
      join(dir, 'refused'),
      '--reporter',
      'line,json,junit,html',
    ],
    cohort.dir,
    { WB_TOKEN: TOKEN },
  );
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /HTTP 401/);
  await assertNowhere(join(dir, 'refused'), refused.stdout + refused.stderr);

  const port = await deadPort();
  const gone = await wbplay(
    [
      'run',
      cohort.playbook,
      '--url',
      `http://127.0.0.1:${port}`,
      '--token-env',
      'WB_TOKEN',
      '--out',
      join(dir, 'gone'),
      '--reporter',
      'line,json,junit,html',
    ],
    cohort.dir,
    { WB_TOKEN: TOKEN },
  );
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /connection was refused/);
  await assertNowhere(join(dir, 'gone'), gone.stdout + gone.stderr);
});
