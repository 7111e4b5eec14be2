// `wbplay run` and `wbplay merge-reports` as a user runs them: a real process, real files,
// the example playbooks of the repository against the embedded reference workbench.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { writeDemoData } from '../../src/sim/demo-data.js';
import type { RunResultTree } from '../../src/result/result.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src', 'cli', 'main.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let dir = '';
let demo = '';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function wbplay(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, main, ...args],
      { cwd: dir, env: { PATH: process.env.PATH, WBPLAY_DEMO: demo, ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

async function report(out: string): Promise<RunResultTree> {
  return JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as RunResultTree;
}

function size(png: Buffer): [number, number] {
  const image = PNG.sync.read(png);
  return [image.width, image.height];
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-run-cli-'));
  demo = join(dir, 'demo');
  await writeDemoData(demo);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the quickstart runs on the embedded workbench, says so in one line, and writes its figures and reports', async () => {
  const out = join(dir, 'quick');
  const r = await wbplay(['run', join(root, 'playbooks', 'quickstart.yaml'), '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    "wbplay: no workbench URL given (--url, the playbook's workbench.url or WORKBENCH_URL): running on the embedded reference workbench\n",
  );
  assert.match(r.stdout, /PASSED 1 case: 1 passed/);
  for (const name of ['axial', 'sagittal', 'coronal', '3d'])
    assert.ok(size(await readFile(join(out, `${name}.png`)))[0] > 0);
  assert.deepEqual(size(await readFile(join(out, 'stdmulti.png'))), [1024, 1024]);
  const result = await report(out);
  assert.equal(result.status, 'passed');
  assert.equal(result.cases[0]?.steps.length, 10);
  assert.match(await readFile(join(out, 'report.html'), 'utf8'), /<html/);
});

test('the regression example passes against its checked-in goldens in CI and writes none', async () => {
  const goldens = join(root, 'playbooks', 'goldens');
  const before = await Promise.all((await readdir(goldens)).sort().map((f) => readFile(join(goldens, f))));
  const out = join(dir, 'regression');
  const r = await wbplay(
    ['run', join(root, 'playbooks', 'regression.yaml'), '--out', out, '--reporter', 'line,junit,json'],
    { CI: 'true' },
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const after = await Promise.all((await readdir(goldens)).sort().map((f) => readFile(join(goldens, f))));
  assert.deepEqual(after, before);
  const result = await report(out);
  assert.deepEqual(
    result.cases[0]?.steps.filter((s) => s.kind === 'expect_image').map((s) => s.image?.outcome),
    ['identical', 'identical', 'identical', 'identical'],
  );
  assert.match(await readFile(join(out, 'junit.xml'), 'utf8'), /<testsuites[^>]* tests="1"/);
});

test('the figure example makes its figure, PNG and SVG, quietly', async () => {
  const out = join(dir, 'figure');
  const r = await wbplay(['run', join(root, 'playbooks', 'figure.yaml'), '--out', out, '--quiet']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(size(await readFile(join(out, 'tumour-figure.png')))[0], 2161, '183 mm at 300 dpi');
  assert.match(await readFile(join(out, 'tumour-figure.svg'), 'utf8'), /^<svg /);
  assert.equal(r.stdout, '', '--quiet prints no progress');
  assert.match(
    r.stderr,
    /^PASSED 1 case: 1 passed, 0 failed, 0 errors, 0 skipped in /m,
    'the verdict, as every reporter ends',
  );
});

test('the cohort example runs every study, four screenshots each, and a contact sheet of them all', async () => {
  const cohort = join(dir, 'cohort-data');
  await writeDemoData(cohort, { cohort: 4 });
  const out = join(dir, 'cohort');
  const r = await wbplay(['run', join(root, 'playbooks', 'cohort.yaml'), '--out', out, '--workers', '2'], {
    WBPLAY_COHORT: cohort,
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const studies = (await readdir(out, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && e.name.startsWith('study-'))
    .map((e) => e.name);
  assert.equal(studies.length, 4);
  for (const s of studies)
    assert.deepEqual((await readdir(join(out, s))).sort(), ['3d.png', 'axial.png', 'coronal.png', 'sagittal.png']);
  const [tile] = size(await readFile(join(out, 'study-001', 'axial.png')));
  const [width] = size(await readFile(join(out, 'contact-sheet.png')));
  assert.equal(width, 2 * tile + 3 * 8, 'four tiles make a 2×2 grid with 8-pixel margins');
  const result = await report(out);
  assert.deepEqual(
    result.figures?.map((f) => [f.kind, f.path, f.sheet?.tiles.map((t) => t.path)]),
    [
      ['figure', 'contact-sheet.png', studies.sort().map((s) => `${s}/axial.png`)],
      ...['png', 'svg', 'pdf', 'tiff'].map((f) => ['figure', `cases-figure.${f}`, undefined]),
    ],
  );
});

test('exit codes: 1 when a case fails, 2 for an invalid playbook or bad options, with where and why', async () => {
  await writeFile(
    join(dir, 'fails.yaml'),
    `version: 1\nsteps:\n  - load: { file: demo/ct.nrrd, as: ct }\n  - expect_state: { of: node:ct, equals: { name: other } }\n`,
  );
  const failed = await wbplay(['run', 'fails.yaml', '--out', 'fails-out', '--reporter', 'line']);
  assert.equal(failed.code, 1);
  assert.match(failed.stdout, /name: expected "other", got "ct"/);

  await writeFile(join(dir, 'invalid.yaml'), 'version: 1\nsteps:\n  - screnshot: { of: app }\n');
  const invalid = await wbplay(['run', 'invalid.yaml']);
  assert.equal(invalid.code, 2);
  assert.match(invalid.stderr, /invalid\.yaml:3:5/);
  assert.match(invalid.stderr, /did you mean `screenshot`/);

  for (const args of [
    ['--workers', '0'],
    ['--shard', '4/3'],
    ['--reporter', 'lines'],
    ['--update-goldens=sometimes'],
    ['--grep', '('],
  ]) {
    const r = await wbplay(['run', 'fails.yaml', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.notEqual(r.stderr, '');
  }
  const help = await wbplay(['run', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Exit codes: 0 every case passed/);
});

test('a token never sits in a playbook, and one named by --token-env must be set', async () => {
  await writeFile(
    join(dir, 'token.yaml'),
    'version: 1\nworkbench: { url: "http://127.0.0.1:9", token: s3cr3t-value }\nsteps:\n  - update\n',
  );
  const literal = await wbplay(['run', 'token.yaml']);
  assert.equal(literal.code, 2);
  assert.match(literal.stderr, /holds the API token itself/);
  assert.doesNotMatch(literal.stderr + literal.stdout, /s3cr3t-value/);
  const cleartext = await wbplay(['run', 'fails.yaml', '--url', 'http://192.0.2.1:8080', '--token-env', 'TOKEN'], {
    TOKEN: 'tok-3456-value',
  });
  assert.equal(cleartext.code, 2);
  assert.match(cleartext.stderr, /--allow-insecure-token/);
  assert.doesNotMatch(cleartext.stderr + cleartext.stdout, /tok-3456-value/);
  const unset = await wbplay(['run', 'fails.yaml', '--url', 'http://127.0.0.1:9', '--token-env', 'NOT_SET_HERE']);
  assert.equal(unset.code, 2);
  assert.match(unset.stderr, /NOT_SET_HERE is not set/);
});

test('Ctrl-C stops the run cleanly: the current step ends, reports are written with what ran, INTERRUPTED, exit 130', async () => {
  await writeFile(
    join(dir, 'slow.yaml'),
    'version: 1\nsteps:\n  - load: { file: demo/ct.nrrd, as: ct }\n  - wait: { ms: 60000 }\n  - screenshot: { of: app, save: slow-out/app.png }\n',
  );
  const child = spawn(
    process.execPath,
    ['--import', tsx, main, 'run', 'slow.yaml', '--out', 'slow-out', '--reporter', 'line'],
    { cwd: dir, env: { PATH: process.env.PATH } },
  );
  let stdout = '';
  let sent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    // The load has finished once its line is out: the wait is running now. (A second Ctrl-C quits at once.)
    if (!sent && /step 1 load .* passed/.test(stdout)) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.equal(code, 130);
  assert.match(stdout, /^INTERRUPTED by SIGINT 1 case: 0 passed, 0 failed, 0 errors, 1 skipped in /m);
  const result = await report(join(dir, 'slow-out'));
  assert.equal(result.status, 'interrupted');
  assert.equal(result.signal, 'SIGINT');
  // Stopped, not broken: the step that was running did not err, and the case did not pass.
  assert.equal(result.cases[0]?.status, 'skipped');
  assert.deepEqual(
    result.cases[0]?.steps.map((s) => s.status),
    ['passed', 'skipped', 'skipped'],
  );
  assert.equal(result.cases[0]?.steps[1]?.skippedReason, 'the run was interrupted during this step');
  assert.equal(result.cases[0]?.steps[2]?.skippedReason, 'the run was interrupted');
});

test('merge-reports merges shard folders into one report and exits by the merged status', async () => {
  const cohort = join(dir, 'merge-data');
  await writeDemoData(cohort, { cohort: 4 });
  const shards = ['1/2', '2/2'].map((s, i) => ({ spec: s, out: join(dir, `shard-${i + 1}`) }));
  for (const s of shards) {
    const r = await wbplay(
      ['run', join(root, 'playbooks', 'cohort.yaml'), '--shard', s.spec, '--out', s.out, '--reporter', 'line'],
      { WBPLAY_COHORT: cohort },
    );
    assert.equal(r.code, 0, r.stderr);
    // A shard runs half the studies its cohort figure shows: it says so and leaves the figure out.
    assert.match(
      r.stdout + r.stderr,
      /the cohort figure .*cases-figure\.png was not made: .* did not pass in this run/,
    );
  }
  const merged = await wbplay(['merge-reports', ...shards.map((s) => s.out), '--out', 'merged']);
  assert.equal(merged.code, 0, merged.stderr);
  assert.match(merged.stdout, /merged 2 reports: 4 cases, 4 passed/);
  const result = await report(join(dir, 'merged'));
  assert.deepEqual(
    result.cases.map((c) => c.id),
    ['study-001', 'study-002', 'study-003', 'study-004'],
  );
  const missing = await wbplay(['merge-reports', join(dir, 'nowhere'), '--out', 'merged-2']);
  assert.equal(missing.code, 2);
});
