// A DICOM export as a cohort, through the CLI against the embedded workbench: plan, shards,
// resume, and what its reports may say about the patients. The steps capture the scene and
// read the study's fields; loading the series is the reader's to test.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RunResultTree } from '../../src/result/result.js';
import { writeDicom } from '../helpers/dicom-headers.js';
import { PATIENT_A, UID, copyDicomdirTests, writeExport } from '../helpers/dicom-trees.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src', 'cli', 'main.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let dir = '';

function wbplay(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, main, ...args],
      { cwd: dir, env: { PATH: process.env.PATH } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function report(out: string): Promise<RunResultTree> {
  return JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8')) as RunResultTree;
}

/** Everything a run leaves to be shared: the JSON, HTML and JUnit reports. */
async function reportTexts(out: string): Promise<string> {
  const files = ['report.json', 'report.html', 'junit.xml'];
  return (await Promise.all(files.map((f) => readFile(join(dir, out, f), 'utf8')))).join('\n');
}

const PLAYBOOK = (save: string): string => `version: 1
name: DICOM cohort
foreach:
  dicom: export
steps:
  - screenshot: { of: stdmulti/axial, save: "${save}", width: 64, height: 64 }
`;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-dicom-cohort-'));
  writeExport(join(dir, 'export'));
  await writeFile(join(dir, 'cohort.yaml'), PLAYBOOK('${out}/${study.name}/axial.png'));
  await writeFile(join(dir, 'with-id.yaml'), PLAYBOOK('${out}/${study.PatientID}-${study.name}/axial.png'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('wbplay plan lists one case per series of the export', async () => {
  const r = await wbplay(['plan', 'cohort.yaml']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /foreach: 4 series as `study` from dicom .*export/);
  assert.equal(r.stdout.match(/^Case [0-9a-f]{10}-(CT|MR)\d-[0-9a-f]{6} /gm)?.length, 4);
});

test('wbplay plan shows a mistake in the DICOM source at its line and column, and exits 2', async () => {
  await writeFile(
    join(dir, 'bad.yaml'),
    'version: 1\nforeach:\n  dicom: export\n  where: { Modalty: CT }\n  pre: series\nsteps:\n  - wait: { ms: 1 }\n',
  );
  const r = await wbplay(['plan', 'bad.yaml']);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  const text = r.stdout + r.stderr;
  assert.match(text, /--> bad\.yaml:4:21[\s\S]*did you mean `Modality`\?/);
  assert.match(text, /--> bad\.yaml:5:3/);
});

test('a report holds the DICOM fields the playbook uses and no other: no patient ID unless asked for', async () => {
  const r = await wbplay(['run', 'cohort.yaml', '--out', 'private', '--reporter', 'line,json,junit,html']);
  assert.equal(r.code, 0, r.stderr);
  const result = await report('private');
  assert.equal(result.cases.length, 4);
  for (const c of result.cases) assert.deepEqual(Object.keys(c.study ?? {}), ['name']);
  const texts = await reportTexts('private');
  for (const secret of [PATIENT_A.id, PATIENT_A.name, UID.studyA, UID.ctArterial, 'ABD ARTERIAL', '20240105', 'ACC-1'])
    assert.ok(!texts.includes(secret), `the reports hold ${secret}`);

  const asked = await wbplay(['run', 'with-id.yaml', '--out', 'with-id', '--reporter', 'line,json,junit,html']);
  assert.equal(asked.code, 0, asked.stderr);
  const withId = await report('with-id');
  assert.deepEqual(Object.keys(withId.cases[0]?.study ?? {}).sort(), ['PatientID', 'name']);
  assert.equal(withId.cases[0]?.study?.PatientID, PATIENT_A.id);
  assert.ok(!(await reportTexts('with-id')).includes('ABD ARTERIAL'));
});

test('shards split a DICOM cohort: disjoint, together the whole, the same on every run', async () => {
  const all = (await report('private')).cases.map((c) => c.id);
  const parts: string[][] = [];
  for (const spec of ['1/2', '2/2']) {
    const out = `shard-${spec[0]}`;
    const r = await wbplay(['run', 'cohort.yaml', '--shard', spec, '--out', out, '--reporter', 'line']);
    assert.equal(r.code, 0, r.stderr);
    parts.push((await report(out)).cases.map((c) => c.id));
  }
  assert.ok(
    parts.every((p) => p.length > 0 && p.length < all.length),
    JSON.stringify(parts),
  );
  assert.deepEqual([...parts.flat()].sort(), [...all].sort());
  const again = await wbplay(['plan', 'cohort.yaml', '--json']);
  assert.deepEqual(
    (JSON.parse(again.stdout) as { cases: { id: string }[] }).cases.map((c) => c.id),
    all,
  );
});

test('resume: a second run finds the series done up to date; a series added to the export runs alone, and so does one whose slice changed', async () => {
  const first = await wbplay(['run', 'cohort.yaml', '--out', 'resume', '--reporter', 'line']);
  assert.equal(first.code, 0, first.stderr);
  const again = await wbplay(['run', 'cohort.yaml', '--out', 'resume', '--reporter', 'line']);
  assert.equal(again.code, 0, again.stderr);
  const second = await report('resume');
  assert.deepEqual(second.summary, { total: 4, passed: 4, failed: 0, error: 0, skipped: 0, upToDate: 4 });
  writeDicom(join(dir, 'export', 'C', 'PT', 'x1'), {
    attrs: {
      PatientID: 'P3',
      StudyInstanceUID: '1.2.3.4.5',
      SeriesInstanceUID: '1.2.3.4.5.6',
      Modality: 'PT',
      SeriesNumber: 1,
    },
  });
  const third = await wbplay(['run', 'cohort.yaml', '--out', 'resume', '--reporter', 'line']);
  assert.equal(third.code, 0, third.stderr);
  const result = await report('resume');
  assert.deepEqual(result.summary, { total: 5, passed: 5, failed: 0, error: 0, skipped: 0, upToDate: 4 });
  assert.deepEqual(
    result.cases.filter((c) => !c.upToDate).map((c) => c.id),
    [result.cases.find((c) => /-PT1-/.test(c.id))?.id],
  );
  // A slice that is not the series' first file changes: its series runs again, alone.
  writeDicom(join(dir, 'export', 'A', 'arterial', 'IM3'), {
    attrs: {
      StudyInstanceUID: UID.studyA,
      SeriesInstanceUID: UID.ctArterial,
      Modality: 'CT',
      SeriesNumber: 2,
      InstanceNumber: 9,
    },
  });
  const fourth = await wbplay(['run', 'cohort.yaml', '--out', 'resume', '--reporter', 'line']);
  assert.equal(fourth.code, 0, fourth.stderr);
  const last = await report('resume');
  assert.deepEqual(last.summary, { total: 5, passed: 5, failed: 0, error: 0, skipped: 0, upToDate: 4 });
  assert.deepEqual(
    last.cases.filter((c) => !c.upToDate).map((c) => c.id),
    [last.cases.find((c) => /-CT2-/.test(c.id))?.id],
  );
});

test("end to end on pydicom's multi-patient tree: each case's file loads, on the reference workbench, the series the case names", async (t) => {
  if (!copyDicomdirTests(join(dir, 'dicomdirtests'))) {
    if (process.env.CI === 'true') assert.fail('python3-pydicom is not installed; .ci/run installs it');
    t.skip('python3-pydicom is not installed here (CI installs it)');
    return;
  }
  await writeFile(
    join(dir, 'e2e.yaml'),
    `version: 1
foreach:
  dicom: dicomdirtests
  where: { Modality: [CT, MR] }
steps:
  - load: { file: "\${study.path}", as: image }
  - expect_state: { of: "node:image", equals: { properties: { "DICOM.0020.000E": { values: [{ value: "\${study.SeriesInstanceUID}" }] } } } }
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}.png", width: 64, height: 64 }
`,
  );
  const r = await wbplay(['run', 'e2e.yaml', '--out', 'e2e', '--reporter', 'line']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const result = await report('e2e');
  assert.deepEqual(result.summary, { total: 10, passed: 10, failed: 0, error: 0, skipped: 0 });
  for (const c of result.cases) assert.ok((await stat(join(dir, 'e2e', `${c.id}.png`))).size > 0);
});
