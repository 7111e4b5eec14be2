// The command-line conventions test-runner users rely on, each row a behaviour a user met:
// bare --update-goldens anywhere, usage errors that exit 2 with a suggestion, `${out}` always
// defined, --tag before compilation, folders as arguments, report files added to the defaults,
// the default token variable, the report's path at the end, and a task list without a width.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { createReporters } from '../../src/report/factory.js';
import { runPlans } from '../../src/run/runner.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

let dir = '';

const FIGURE = [
  'version: 1',
  'name: Figure',
  'tags: [figure]',
  'steps:',
  '  - load: { file: data/ct.nrrd, as: ct }',
  '  - reinit',
  '  - screenshot: { of: stdmulti/axial, save: "${out}/axial.png" }',
  '  - expect_image: { of: stdmulti/axial, golden: goldens/axial.png }',
  '',
].join('\n');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-conventions-'));
  await writeDemoData(join(dir, 'data'));
  await mkdir(join(dir, 'suite', 'parts'), { recursive: true });
  await writeFile(join(dir, 'figure.yaml'), FIGURE);
  // A broken playbook with another tag, and a fragment that other playbooks include.
  await writeFile(
    join(dir, 'suite', 'broken.yaml'),
    'version: 1\nname: Broken\ntags: [nightly]\nsteps:\n  - lod: {}\n',
  );
  await writeFile(join(dir, 'suite', 'good.yaml'), 'version: 1\nname: Good\ntags: [figure]\nsteps:\n  - reinit\n');
  await writeFile(join(dir, 'suite', 'parts', 'steps.yaml'), '- reinit\n');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('--update-goldens and -u are bare anywhere on the line: the playbook after them is a playbook', async () => {
  for (const args of [
    ['run', '--update-goldens', 'figure.yaml', '--out', 'o-u1'],
    ['run', '-u', 'figure.yaml', '--out', 'o-u2'],
    ['run', 'figure.yaml', '--update-goldens', '--out', 'o-u3'],
  ]) {
    const result = await wbplay([...args, '--reporter', 'line'], dir);
    assert.equal(result.code, 0, `${args.join(' ')}\n${result.stderr}`);
  }
});

test('usage errors exit 2, with a suggestion where there is one', async () => {
  const cases: Array<[string[], RegExp, NodeJS.ProcessEnv?]> = [
    [
      ['run', 'figure.yaml', '--url', 'localhost:8080'],
      /'localhost:8080' is not an http:\/\/ or https:\/\/ URL[\s\S]*did you mean http:\/\/localhost:8080\?/,
    ],
    [['run', 'figure.yaml', '--url', 'notaurl'], /'notaurl' is not an http:\/\/ or https:\/\/ URL/],
    [['run', 'figure.yaml'], /WORKBENCH_URL: 'ftp:\/\/x' is not an http/, { WORKBENCH_URL: 'ftp://x' }],
    [['run', 'figure.yaml', '--update-goldens=bogus'], /bogus/],
    [['run', 'figure.yaml', '--launch'], /--launch needs the workbench program: MITK_WORKBENCH is not set/],
    [['run', 'figure.yaml', '--reporter', 'junti'], /did you mean "junit"/],
  ];
  for (const [args, message, env] of cases) {
    const result = await wbplay(args, dir, env);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
  }
});

test('${out} is defined in validate, plan and run without --out: the default output folder', async () => {
  const validate = await wbplay(['validate', 'figure.yaml'], dir);
  assert.equal(validate.code, 0, validate.stderr);
  const plan = await wbplay(['plan', 'figure.yaml', '--json'], dir);
  assert.equal(plan.code, 0, plan.stderr);
  assert.ok(plan.stdout.includes(join(dir, 'wbplay-out', 'axial.png')), 'the screenshot goes under ./wbplay-out');
});

test('--tag chooses playbooks before any is compiled; folders and quoted globs are playbook arguments', async () => {
  const tagged = await wbplay(['run', 'suite', '--tag', 'figure', '--out', 'o-tag', '--reporter', 'line'], dir);
  assert.equal(tagged.code, 0, tagged.stderr);
  assert.match(tagged.stdout, /Good passed/);
  assert.doesNotMatch(tagged.stdout + tagged.stderr, /Broken|lod/);
  const folder = await wbplay(['validate', 'suite'], dir);
  assert.equal(folder.code, 2);
  assert.match(folder.stdout, /OK suite\/good\.yaml/);
  assert.match(folder.stderr, /suite\/broken\.yaml/);
  assert.doesNotMatch(folder.stdout + folder.stderr, /steps\.yaml/, 'a fragment without `version` is not a playbook');
  const globbed = await wbplay(['validate', 'suite/g*.yaml'], dir);
  assert.equal(globbed.code, 0, globbed.stderr);
  assert.equal(globbed.stdout.trim(), 'OK suite/good.yaml');
});

test("a file reporter is added to the default files, and the end of the run prints the report's path", async () => {
  const result = await wbplay(['run', 'figure.yaml', '--reporter', 'junit', '--out', 'o-junit'], dir);
  assert.equal(result.code, 0, result.stderr);
  for (const file of ['report.json', 'report.html', 'junit.xml']) await stat(join(dir, 'o-junit', file));
  assert.match(result.stdout, /^Report: o-junit\/report\.html$/m);
});

test('WORKBENCH_TOKEN is the default token variable; a refused token names where it came from', async (t) => {
  const wb = await startTestWorkbench({ token: 'token-from-default' });
  t.after(() => wb.stop());
  const ok = await wbplay(['run', 'figure.yaml', '--out', 'o-tok', '--reporter', 'line'], dir, {
    WORKBENCH_URL: wb.url,
    WORKBENCH_TOKEN: 'token-from-default',
  });
  assert.equal(ok.code, 0, ok.stderr);
  const named = await wbplay(['run', 'figure.yaml', '--out', 'o-tok2', '--token-env', 'MY_TOKEN'], dir, {
    WORKBENCH_URL: wb.url,
    MY_TOKEN: 'wrong',
  });
  assert.equal(named.code, 1);
  assert.match(
    named.stderr,
    /the API token was not accepted \(HTTP 401\); it came from the environment variable MY_TOKEN \(--token-env\)/,
  );
  const none = await wbplay(['run', 'figure.yaml', '--out', 'o-tok3'], dir, { WORKBENCH_URL: wb.url });
  assert.match(none.stderr, /wants an API token and none was given[\s\S]*WORKBENCH_TOKEN/);
});

test('a terminal that reports 0 columns gets lines, not cursor codes', async () => {
  let written = '';
  const stream = { write: (s: string) => ((written += s), true), isTTY: true, columns: 0 };
  const plan = loadPlaybook(join(dir, 'figure.yaml'), { vars: { out: join(dir, 'o-cols') } });
  await runPlans({
    plans: [plan],
    workbenches: embeddedWorkbenches(1),
    reporter: createReporters(['tasklist'], { outputDir: join(dir, 'o-cols'), stream, isTTY: true, env: {} }),
    outputDir: join(dir, 'o-cols'),
  });
  assert.match(written, /Figure › step 1 load/);
  const ESC = String.fromCharCode(27);
  assert.ok(!new RegExp(`${ESC}\\[\\d*[ABGKJ]`).test(written), 'no cursor movement');
});
