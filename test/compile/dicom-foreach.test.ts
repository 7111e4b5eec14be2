import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compilePlaybook, loadPlaybook } from '../../src/compile/index.js';
import { SOP, writeDicom } from '../helpers/dicom-headers.js';
import { PATIENT_A, UID, copyDicomdirTests, writeExport } from '../helpers/dicom-trees.js';

const dir = mkdtempSync(join(tmpdir(), 'wbplay-dicom-foreach-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeExport(join(dir, 'export'));

const NAME = /^[0-9a-f]{10}-[A-Z]+\d+-[0-9a-f]{6}$/;

function playbook(name: string, foreach: string, steps = '  - load: { file: "${study.path}", as: s }\n'): string {
  const file = join(dir, name);
  writeFileSync(file, `version: 1\nforeach:\n${foreach}\nsteps:\n${steps}`);
  return file;
}

const compile = (file: string) => loadPlaybook(file, { env: {}, displayRoot: dir });

test('per series (the default): one case per series, in study order, named by hashes of its UIDs', () => {
  const plan = compile(playbook('series.yaml', '  dicom: export'));
  assert.deepEqual(plan.foreach, { as: 'study', source: 'dicom', per: 'series', from: join(dir, 'export'), count: 4 });
  const names = plan.cases.map((c) => c.name);
  for (const n of names) assert.match(n, NAME);
  assert.deepEqual(
    names.map((n) => n.split('-')[1]),
    ['CT2', 'CT3', 'MR1', 'MR2'],
  );
  assert.equal(new Set(names).size, 4);
  // The two series of a study share its prefix.
  assert.equal(names[0]?.slice(0, 10), names[1]?.slice(0, 10));
  assert.notEqual(names[1]?.slice(0, 10), names[2]?.slice(0, 10));
  const load = plan.cases[0]?.steps[0];
  assert.equal(load?.kind === 'load' ? load.args.file : undefined, join(dir, 'export', 'A', 'arterial', 'IM1'));
});

test('names are the same wherever the export lies and whatever its files are called', () => {
  const before = compile(playbook('series.yaml', '  dicom: export')).cases.map((c) => c.name);
  const moved = join(dir, 'elsewhere', 'copy');
  cpSync(join(dir, 'export'), moved, { recursive: true });
  rmSync(join(moved, 'A', 'arterial', 'IM1'));
  const after = compile(playbook('moved.yaml', '  dicom: elsewhere/copy')).cases.map((c) => c.name);
  assert.deepEqual(after, before);
  rmSync(join(dir, 'elsewhere'), { recursive: true });
});

test('every field a case offers, when the playbook uses it; a name never holds the patient', () => {
  const uses = ['name', 'path', 'dir', 'files', 'PatientID', 'StudyInstanceUID', 'StudyDate', 'StudyDescription']
    .concat(['AccessionNumber', 'SeriesInstanceUID', 'SeriesNumber', 'SeriesDescription', 'Modality'])
    .concat(['BodyPartExamined', 'Rows', 'Columns'])
    .map((f) => `${f}=\${study.${f}}`)
    .join(' ');
  const plan = compile(playbook('fields.yaml', '  dicom: export', `  - wait: { ms: 1 }\n# ${uses}\n`));
  // A comment is no use: the fields a playbook reads are those it expands.
  assert.deepEqual(Object.keys(plan.cases[0]?.study ?? {}), ['name']);
  const used = compile(
    playbook(
      'fields2.yaml',
      '  dicom: export',
      `  - screenshot: { of: app, save: "out/${uses.replace(/[ =^]/g, '_')}.png" }\n`,
    ),
  );
  const study = used.cases[0]?.study ?? {};
  assert.deepEqual(study, {
    name: used.cases[0]?.name,
    path: join(dir, 'export', 'A', 'arterial', 'IM1'),
    dir: join(dir, 'export', 'A', 'arterial'),
    files: 3,
    PatientID: PATIENT_A.id,
    StudyInstanceUID: UID.studyA,
    StudyDate: '20240105',
    StudyDescription: 'CT ABDOMEN',
    AccessionNumber: 'ACC-1',
    SeriesInstanceUID: UID.ctArterial,
    SeriesNumber: 2,
    SeriesDescription: 'ABD ARTERIAL',
    Modality: 'CT',
    BodyPartExamined: 'ABDOMEN',
    Rows: 4,
    Columns: 4,
  });
  assert.ok(!used.cases.some((c) => c.name.includes(PATIENT_A.id) || c.name.includes('20240105')));
});

test('where picks series by keyword: values, lists, globs, numbers', () => {
  const pick = (where: string): string[] =>
    compile(playbook('where.yaml', `  dicom: export\n  where: ${where}`)).cases.map((c) => c.name.split('-')[1] ?? '');
  assert.deepEqual(pick('{ Modality: CT, SeriesDescription: "*ARTERIAL*" }'), ['CT2']);
  assert.deepEqual(pick('{ Modality: [MR, CT] }'), ['CT2', 'CT3', 'MR1', 'MR2']);
  assert.deepEqual(pick('{ SeriesNumber: 2 }'), ['CT2', 'MR2']);
  assert.deepEqual(pick('{ BodyPartExamined: HEAD, SeriesDescription: "T? axial" }'), ['MR1', 'MR2']);
});

test('per study: one case per study with a matching series, its folder, its files and series', () => {
  const plan = compile(
    playbook(
      'study.yaml',
      '  dicom: export\n  per: study',
      '  - screenshot: { of: app, save: "out/${study.name}-${study.path}-${study.files}-${study.series}-${study.Modality}-${study.SeriesNumber}.png" }\n  - wait: { ms: "${study.files}" }\n',
    ),
  );
  assert.equal(plan.cases.length, 2);
  const [a, b] = plan.cases.map((c) => c.study ?? {});
  assert.match(String(a?.name), /^[0-9a-f]{10}-CT$/);
  assert.deepEqual(
    [a?.path, a?.files, a?.series, a?.Modality, a?.SeriesNumber],
    [join(dir, 'export', 'A'), 5, 2, 'CT', '2\\3'],
  );
  assert.deepEqual([b?.path, b?.files, b?.series], [join(dir, 'export', 'B', 'MR'), 4, 2]);
  // The study's name is its series' prefix.
  const series = compile(playbook('series.yaml', '  dicom: export')).cases.map((c) => c.name);
  assert.ok(series[0]?.startsWith(String(a?.name).slice(0, 10)));
  const mr = compile(playbook('study-mr.yaml', '  dicom: export\n  per: study\n  where: { Modality: MR }'));
  assert.equal(mr.cases.length, 1);
});

test("pydicom's multi-patient tree: 13 series of 6 studies, every name unique", (t) => {
  const copy = join(dir, 'dicomdirtests');
  if (!copyDicomdirTests(copy)) {
    if (process.env.CI === 'true') assert.fail('python3-pydicom is not installed; .ci/run installs it');
    t.skip('python3-pydicom is not installed here (CI installs it)');
    return;
  }
  const series = compile(playbook('tree.yaml', '  dicom: dicomdirtests')).cases.map((c) => c.name);
  assert.equal(series.length, 13);
  assert.equal(new Set(series).size, 13);
  const studies = compile(playbook('tree-studies.yaml', '  dicom: dicomdirtests\n  per: study')).cases;
  assert.equal(studies.length, 6);
  const localizers = compile(
    playbook('tree-where.yaml', '  dicom: dicomdirtests\n  where: { Modality: MR, SeriesDescription: "*LOCALIZER*" }'),
  ).cases;
  assert.equal(localizers.length, 4);
});

test('mistakes are errors at their line and column', () => {
  mkdirSync(join(dir, 'no-series'), { recursive: true });
  writeFileSync(join(dir, 'no-series', 'readme.txt'), 'hello');
  writeDicom(join(dir, 'no-series', 'report'), {
    attrs: { SOPClassUID: SOP.SR, Modality: 'SR', SeriesInstanceUID: '1.2.3' },
    pixels: false,
  });
  const cases: [string, string, RegExp, number, number][] = [
    ['  dicom: export\n  pre: series', 'UNKNOWN_FIELD', /pre/, 4, 3],
    ['  dicom: export\n  per: seris', 'BAD_VALUE', /series|study/, 4, 8],
    ['  dicom: export\n  where: { Modalty: CT }', 'FOREACH_SOURCE', /Modalty/, 4, 21],
    ['  dicom: export\n  where: { Rows: [] }', 'BAD_LENGTH', /at least 1 item/, 4, 18],
    [
      '  dicom: export\n  where: { Rows: { a: 1 } }',
      'WRONG_TYPE',
      /Rows` must be a string or a number or a list/,
      4,
      18,
    ],
    ['  dicom: nowhere', 'FILE_NOT_FOUND', /does not exist/, 3, 10],
    [
      '  dicom: no-series',
      'FOREACH_SOURCE',
      /holds no DICOM series: 2 files, 1 DICOM, 1 of them without pixel data/,
      3,
      10,
    ],
    [
      '  dicom: export\n  where: { Modality: PT }',
      'FOREACH_SOURCE',
      /no series of `export` matches `Modality: PT`/,
      4,
      10,
    ],
    ['  csv: data.csv\n  per: series', 'FOREACH_SOURCE', /belongs to a `dicom` or `dicomweb` source/, 4, 8],
  ];
  for (const [foreach, code, message, line, col] of cases) {
    const r = compilePlaybook(playbook('bad.yaml', foreach), { env: {}, displayRoot: dir });
    const d = r.diagnostics[0];
    assert.equal(d?.code, code, `${foreach}: ${JSON.stringify(r.diagnostics)}`);
    assert.match(d?.message ?? '', message, foreach);
    assert.deepEqual([d?.span?.file, d?.span?.line, d?.span?.col], ['bad.yaml', line, col], foreach);
  }
  const typo = compilePlaybook(playbook('bad.yaml', '  dicom: export\n  where: { Modalty: CT }'), { env: {} });
  assert.match(typo.diagnostics[0]?.hint ?? '', /did you mean `Modality`/);
  const none = compilePlaybook(playbook('bad.yaml', '  dicom: export\n  where: { Modality: PT }'), { env: {} });
  assert.match(none.diagnostics[0]?.hint ?? '', /CT 2 "ABD ARTERIAL" \(3 files\) in A\/arterial/);
});

test('a field read in an include counts; a literal `$${study.X}` does not', () => {
  writeFileSync(
    join(dir, 'part.yaml'),
    'version: 1\nsteps:\n  - screenshot: { of: app, save: "out/${study.SeriesDescription}.png" }\n',
  );
  const plan = compile(
    playbook(
      'include.yaml',
      '  dicom: export',
      '  - include: { file: part.yaml }\n  - screenshot: { of: app, save: "out/$${study.PatientID}-${study.name}.png" }\n',
    ),
  );
  assert.deepEqual(Object.keys(plan.cases[0]?.study ?? {}).sort(), ['SeriesDescription', 'name']);
});
