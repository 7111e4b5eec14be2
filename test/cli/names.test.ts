// Names that travel: the same run in two checkout folders names its playbooks, goldens and
// artefacts alike in every report (CI systems key a test's history on these names), from the
// project root: the configuration file's folder, else the working folder.
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root, wbplay } from '../helpers/cohort.js';

let dir = '';
let demo = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-names-'));
  demo = join(dir, 'demo');
  const made = await wbplay(['demo-data', demo], dir);
  assert.equal(made.code, 0, made.stderr);
});

after(() => rm(dir, { recursive: true, force: true }));

/** A checkout of the example playbooks with the demo data where they look for it, and one changed golden. */
async function checkout(path: string): Promise<string> {
  await mkdir(path, { recursive: true });
  await cp(join(root, 'playbooks'), join(path, 'playbooks'), { recursive: true });
  await cp(demo, join(path, 'wbplay-out', 'demo'), { recursive: true });
  // The coronal golden of another version: its check fails, so the reports carry artefacts.
  await cp(join(root, 'playbooks', 'goldens', 'axial.png'), join(path, 'playbooks', 'goldens', 'coronal.png'));
  return path;
}

/** A report with its times and durations masked: what is left must not depend on the folder. */
function masked(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?/g, '<TIME>')
    .replace(/(time|durationMs)(="|":)[\d.]+/g, '$1$2<T>')
    .replace(/\(?\b\d+(\.\d+)? (ms|s)\b\)?/g, '<T>');
}

test('the same run in two checkout folders gives the same JUnit names and report names', async () => {
  const a = await checkout(join(dir, 'checkout-a'));
  const b = await checkout(join(dir, 'builds', 'runner-7', 'wbplay'));
  const texts: Record<string, string>[] = [];
  for (const project of [a, b]) {
    const run = await wbplay(['run', 'playbooks/regression.yaml', '--reporter', 'junit'], project);
    assert.equal(run.code, 1, run.stderr);
    const out = join(project, 'wbplay-out');
    texts.push({
      junit: await readFile(join(out, 'junit.xml'), 'utf8'),
      json: await readFile(join(out, 'report.json'), 'utf8'),
      stdout: run.stdout,
    });
  }
  const [first, second] = texts as [Record<string, string>, Record<string, string>];
  // Byte for byte where CI systems read names: suites, classnames, attachments.
  const names = (xml: string): string[] =>
    [...xml.matchAll(/<testsuite name="[^"]*"|classname="[^"]*"|\[\[ATTACHMENT\|[^\]]*\]\]/g)].map((m) => m[0]);
  assert.deepEqual(names(first.junit!), names(second.junit!));
  assert.deepEqual(names(first.junit!).slice(0, 2), [
    '<testsuite name="playbooks/regression.yaml"',
    'classname="playbooks/regression.yaml"',
  ]);
  assert.ok(names(first.junit!).includes('[[ATTACHMENT|wbplay-out/artefacts/Regression/main/coronal-diff.png]]'));
  assert.equal(masked(first.junit!), masked(second.junit!));
  assert.equal(masked(first.json!), masked(second.json!));
  for (const [project, text] of [
    [a, first],
    [b, second],
  ] as const) {
    for (const kind of ['junit', 'json', 'stdout'])
      assert.ok(!text[kind]!.includes(project), `${kind} names ${project}`);
  }
  const report = JSON.parse(first.json!) as {
    provenance: { playbooks: { path: string }[] };
    cases: { playbook: string; steps: { image?: { golden: string }; args: { file?: string } }[] }[];
  };
  assert.deepEqual(
    report.provenance.playbooks.map((p) => p.path),
    ['playbooks/regression.yaml'],
  );
  assert.equal(report.cases[0]!.playbook, 'playbooks/regression.yaml');
  assert.ok(report.cases[0]!.steps.some((s) => s.image?.golden === 'playbooks/goldens/coronal.png'));
  assert.equal(report.cases[0]!.steps[0]!.args.file, 'wbplay-out/demo/ct.nrrd');
  // The terminal names the files and the commands from where the user stands.
  assert.match(first.stdout!, /diff: wbplay-out\/artefacts\/Regression\/main\/coronal-diff\.png/);
  assert.match(first.stdout!, /wbplay show-report wbplay-out;.*wbplay accept wbplay-out/);
});

test('names start at the configuration file, from any folder below it; files outside keep their path', async () => {
  const project = await checkout(join(dir, 'configured'));
  await writeFile(join(project, 'wbplay.config.yaml'), 'out: wbplay-out\nreporters: [junit]\n');
  const data = join(dir, 'demo');
  const run = await wbplay(['run', 'regression.yaml'], join(project, 'playbooks'), { WBPLAY_DEMO: data });
  assert.equal(run.code, 1, run.stderr);
  const junit = await readFile(join(project, 'wbplay-out', 'junit.xml'), 'utf8');
  assert.match(junit, /<testsuite name="playbooks\/regression\.yaml"/);
  assert.match(junit, /\[\[ATTACHMENT\|wbplay-out\/artefacts\/Regression\/main\/coronal-actual\.png\]\]/);
  const report = JSON.parse(await readFile(join(project, 'wbplay-out', 'report.json'), 'utf8')) as {
    cases: { steps: { args: { file?: string } }[] }[];
  };
  // The demo data lies outside the project: its absolute path is the only name that finds it.
  assert.equal(report.cases[0]!.steps[0]!.args.file, join(data, 'ct.nrrd').split('\\').join('/'));

  // Accepting from the project folder writes the golden the report names; from elsewhere it refuses.
  const elsewhere = await wbplay(['accept', join(project, 'wbplay-out')], dir);
  assert.equal(elsewhere.code, 1);
  assert.match(elsewhere.stderr, /OTHER_PROJECT/);
  const accepted = await wbplay(['accept', 'wbplay-out'], project);
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.deepEqual(
    await readFile(join(project, 'playbooks', 'goldens', 'coronal.png')),
    await readFile(join(project, 'wbplay-out', 'artefacts', 'Regression', 'main', 'coronal-actual.png')),
  );
});
