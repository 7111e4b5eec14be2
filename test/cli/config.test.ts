// wbplay.config.yaml: found from the current folder upward, checked against its published schema
// (problems at file:line:col), overridden by the command line, with named projects and a golden
// path template that keeps goldens apart per project, engine and platform.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';
import { startTestWorkbench } from '../helpers/workbench.js';

let dir = '';

const FIGURE = [
  'version: 1',
  'name: Figure',
  'steps:',
  '  - load: { file: data/ct.nrrd, as: ct }',
  '  - reinit',
  '  - screenshot: { of: stdmulti/axial, save: "${out}/${shot}.png" }',
  '  - expect_image: { of: stdmulti/axial, golden: goldens/axial.png }',
  '',
].join('\n');

const CONFIG = [
  'out: results',
  'reporters: [line, junit]',
  'update_goldens: missing',
  'vars: { shot: from-config }',
  'goldens: goldens/{project}/{engine_version}/{platform}/{playbook}/{name}.png',
  'projects:',
  '  mitk-next:',
  '    out: results-next',
  '    vars: { shot: next }',
  '',
].join('\n');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-config-'));
  await mkdir(join(dir, 'suite'), { recursive: true });
  await writeDemoData(join(dir, 'suite', 'data'));
  await writeFile(join(dir, 'suite', 'figure.yaml'), FIGURE);
  await writeFile(join(dir, 'wbplay.config.yaml'), CONFIG);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("the configuration is found from the current folder upward; its paths are its own folder's", async () => {
  const result = await wbplay(['run', 'figure.yaml'], join(dir, 'suite'));
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Figure passed/, 'the line reporter the file names');
  for (const file of ['report.json', 'report.html', 'junit.xml', 'from-config.png'])
    await stat(join(dir, 'results', file));
  const report = JSON.parse(await readFile(join(dir, 'results', 'report.json'), 'utf8')) as {
    provenance: { workbench?: { engine_version?: string } };
  };
  const engine = report.provenance.workbench?.engine_version;
  assert.ok(engine, 'the report names the engine');
  await stat(
    join(dir, 'goldens', 'default', engine.replace(/[^A-Za-z0-9._+-]/g, '_'), process.platform, 'figure', 'axial.png'),
  );
});

test("validate and plan see the configuration's variables and `out`, as a run does", async () => {
  const plan = await wbplay(['plan', 'suite/figure.yaml', '--json'], dir);
  assert.equal(plan.code, 0, plan.stderr);
  assert.ok(plan.stdout.includes(join(dir, 'results', 'from-config.png')), plan.stdout.slice(0, 400));
  const project = await wbplay(['plan', 'suite/figure.yaml', '--json', '--project', 'mitk-next'], dir);
  assert.ok(project.stdout.includes(join(dir, 'results-next', 'next.png')));
  const validate = await wbplay(['validate', 'suite/figure.yaml', '--project', 'nope'], dir);
  assert.equal(validate.code, 2);
  assert.match(validate.stderr, /--project nope: wbplay\.config\.yaml has no such project/);
});

test("the command line overrides the file; --project uses a project over the file's settings", async () => {
  const cli = await wbplay(
    ['run', 'figure.yaml', '--out', 'here', '--var', 'shot=cli', '--reporter', 'line'],
    join(dir, 'suite'),
  );
  assert.equal(cli.code, 0, cli.stderr);
  await stat(join(dir, 'suite', 'here', 'cli.png'));
  await assert.rejects(stat(join(dir, 'suite', 'here', 'junit.xml')), "the named reporters replace the file's");

  const project = await wbplay(['run', 'suite/figure.yaml', '--project', 'mitk-next'], dir);
  assert.equal(project.code, 0, project.stderr);
  await stat(join(dir, 'results-next', 'next.png'));
  assert.match(project.stdout, /written/i, 'the project has goldens of its own, written on first run');
  const wrong = await wbplay(['run', 'suite/figure.yaml', '--project', 'mitk-nxt'], dir);
  assert.equal(wrong.code, 2);
  assert.match(
    wrong.stderr,
    /--project mitk-nxt: wbplay\.config\.yaml has no such project[\s\S]*did you mean `mitk-next`/,
  );
});

test('a configuration with problems is reported at file:line:col and exits 2', async (t) => {
  const bad = await mkdtemp(join(tmpdir(), 'wbplay-config-bad-'));
  t.after(() => rm(bad, { recursive: true, force: true }));
  await writeFile(join(bad, 'figure.yaml'), 'version: 1\nsteps:\n  - reinit\n');
  await writeFile(
    join(bad, 'wbplay.config.yaml'),
    'workers: two\nreportes: [junit]\nurl: localhost:8080\ngoldens: "g/{study}.png"\n',
  );
  const result = await wbplay(['run', 'figure.yaml'], bad);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /wbplay\.config\.yaml:1:10/);
  assert.match(result.stderr, /wbplay\.config\.yaml:2:1[\s\S]*reporters/);
  assert.match(result.stderr, /wbplay\.config\.yaml:3:6[\s\S]*did you mean http:\/\/localhost:8080\?/);
  assert.match(result.stderr, /wbplay\.config\.yaml:4:10/);
});

test('the token variable of the configuration is read, and a refused token names it', async (t) => {
  const wb = await startTestWorkbench({ token: 'right' });
  t.after(() => wb.stop());
  const own = await mkdtemp(join(tmpdir(), 'wbplay-config-token-'));
  t.after(() => rm(own, { recursive: true, force: true }));
  await writeFile(join(own, 'figure.yaml'), 'version: 1\nsteps:\n  - reinit\n');
  await writeFile(join(own, 'wbplay.config.yaml'), `url: ${wb.url}\ntoken_env: LAB_TOKEN\nreporters: [line]\n`);
  const ok = await wbplay(['run', 'figure.yaml'], own, { LAB_TOKEN: 'right' });
  assert.equal(ok.code, 0, ok.stderr);
  const refused = await wbplay(['run', 'figure.yaml'], own, { LAB_TOKEN: 'wrong' });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /came from the environment variable LAB_TOKEN \(token_env of wbplay\.config\.yaml\)/);
  assert.ok(!refused.stderr.includes('wrong') && !refused.stdout.includes('wrong'), 'the token is never shown');
});
