import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { findSeries, scanDicomFolder, seriesLabel } from '../../src/volume/dicom/scan.js';
import { FIRST_READ } from '../../src/volume/dicom/scan-header.js';
import { checkWhere, matchesWhere } from '../../src/volume/dicom/where.js';
import { PATIENT_A, UID, copyDicomdirTests, pythonWithPydicom, writeExport } from '../helpers/dicom-trees.js';

const dir = mkdtempSync(join(tmpdir(), 'wbplay-dicom-scan-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tree = join(dir, 'export');
writeExport(tree);

test('a scan finds each series by content: extension-less files, a bare data set, a long header; no report, plan or text file', () => {
  const scan = scanDicomFolder(tree, { recursive: true });
  const seen = scan.series.map((s) => [relative(tree, s.path), s.files, s.keywords.SeriesInstanceUID]);
  assert.deepEqual(seen, [
    ['A/arterial/IM1', 3, UID.ctArterial],
    ['A/venous/v1.dcm', 2, UID.ctVenous],
    ['B/MR/0001', 2, UID.mrT1],
    ['B/MR/0003', 2, UID.mrT2],
  ]);
  // Files: 3 + 2 + SR + plan + 4 not DICOM + 4 MR (the hidden folder is not entered).
  assert.deepEqual(scan.counts, { files: 15, dicom: 11, notSeries: 2 });
  const ct = scan.series[0]!;
  assert.equal(ct.dir, join(tree, 'A', 'arterial'));
  assert.deepEqual(
    ct.paths.map((p) => relative(tree, p)),
    ['A/arterial/IM1', 'A/arterial/IM2', 'A/arterial/IM3'],
  );
  assert.equal(ct.keywords.SeriesNumber, 2);
  assert.equal(ct.keywords.Rows, 4);
  assert.equal(ct.keywords.StudyDate, '20240105');
  assert.equal(ct.keywords.SeriesDescription, 'ABD ARTERIAL');
  assert.equal(ct.keywords.PatientID, PATIENT_A.id);
  // Never read: a name or birth date cannot leak from what the scan does not hold.
  assert.ok(!('PatientName' in ct.keywords) && !('PatientBirthDate' in ct.keywords));
  assert.ok(!JSON.stringify(scan).includes('Doe^Jane'));
  assert.equal(seriesLabel(ct, tree), 'CT 2 "ABD ARTERIAL" (3 files) in A/arterial');
});

test('a header longer than the first read is read from the whole file', () => {
  const t2 = scanDicomFolder(join(tree, 'B', 'MR'), { recursive: false }).series[1]!;
  assert.ok(String(t2.keywords.StudyDescription).length > FIRST_READ);
  assert.equal(t2.keywords.SeriesDescription, 'T2 axial');
});

test('findSeries: a folder alone (as MITK reads one), filtered by where, with every series as candidates', () => {
  const mr = join(tree, 'B', 'MR');
  const t1 = findSeries(mr, { SeriesDescription: 'T1*' });
  assert.deepEqual(
    t1.matching.map((s) => s.keywords.SeriesNumber),
    [1],
  );
  assert.equal(t1.candidates.length, 2);
  assert.deepEqual(findSeries(mr, { Modality: 'CT' }).matching, []);
  assert.equal(findSeries(mr, undefined).matching.length, 2);
  // Not recursive: the export's root holds no file of a series itself.
  assert.equal(findSeries(tree, undefined).candidates.length, 0);
});

test('where: values, lists, numbers as numbers, case-sensitive globs, multi-valued attributes', () => {
  const k = {
    Modality: 'CT',
    SeriesNumber: 3,
    SeriesDescription: 'ABD ARTERIAL',
    ImageType: 'ORIGINAL\\PRIMARY\\LOCALIZER',
    BodyPartExamined: '',
  };
  assert.ok(matchesWhere(k, { Modality: 'CT' }));
  assert.ok(!matchesWhere(k, { Modality: 'ct' }), 'DICOM compares text with its case');
  assert.ok(matchesWhere(k, { Modality: ['MR', 'CT'] }));
  assert.ok(matchesWhere(k, { SeriesNumber: 3 }));
  assert.ok(matchesWhere(k, { SeriesNumber: '3' }));
  assert.ok(matchesWhere(k, { SeriesNumber: [1, 3] }));
  assert.ok(!matchesWhere(k, { SeriesNumber: 30 }));
  assert.ok(matchesWhere(k, { SeriesDescription: '*ARTERIAL*' }));
  assert.ok(matchesWhere(k, { SeriesDescription: 'ABD?ARTERIAL' }));
  assert.ok(!matchesWhere(k, { SeriesDescription: '*arterial*' }));
  assert.ok(!matchesWhere(k, { SeriesDescription: 'ARTERIAL' }), 'without a wildcard, the whole text');
  assert.ok(matchesWhere(k, { ImageType: 'LOCALIZER' }));
  assert.ok(matchesWhere(k, { ImageType: 'ORIGINAL\\PRIMARY\\LOCALIZER' }));
  assert.ok(matchesWhere(k, { BodyPartExamined: '*' }), '`*` matches an absent value too');
  assert.ok(!matchesWhere(k, { BodyPartExamined: 'HEAD' }));
  assert.ok(!matchesWhere(k, { Modality: 'CT', SeriesNumber: 4 }), 'every keyword must match');
  assert.ok(
    matchesWhere({ SeriesDescription: 'a.b(c)' }, { SeriesDescription: 'a.b(*' }),
    'regex characters are literal',
  );
});

test('where: unknown keywords and values of the wrong kind are problems', () => {
  assert.deepEqual(checkWhere({ Modality: 'CT', SeriesNumber: [1, 2] }), []);
  const problems = checkWhere({ Modalty: 'CT', SeriesNumber: [1, { a: 1 }], Rows: [], PatientName: 'Doe' });
  assert.deepEqual(
    problems.map((p) => [p.key, p.index]),
    [
      ['Modalty', undefined],
      ['SeriesNumber', 1],
      ['Rows', undefined],
      ['PatientName', undefined],
    ],
  );
});

test("pydicom's multi-patient tree: the series and their files are those pydicom finds, and no DICOMDIR or pixel-less file is one", (t) => {
  const copy = join(dir, 'dicomdirtests');
  const python = pythonWithPydicom();
  if (!copyDicomdirTests(copy) || !python) {
    if (process.env.CI === 'true') assert.fail('python3-pydicom is not installed; .ci/run installs it');
    t.skip('python3-pydicom is not installed here (CI installs it)');
    return;
  }
  const ours = scanDicomFolder(copy, { recursive: true });
  const script = [
    'import os, sys, json, pydicom',
    'groups = {}',
    'for d, _, fs in os.walk(sys.argv[1]):',
    '  for f in fs:',
    '    try: ds = pydicom.dcmread(os.path.join(d, f), force=True)',
    '    except Exception: continue',
    "    if 'PixelData' not in ds or 'SeriesInstanceUID' not in ds: continue",
    '    k = ds.SeriesInstanceUID + " " + os.path.relpath(d, sys.argv[1])',
    '    groups[k] = groups.get(k, 0) + 1',
    'print(json.dumps(groups))',
  ].join('\n');
  const theirs = JSON.parse(
    execFileSync(python, ['-c', script, copy], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  ) as Record<string, number>;
  const mine = Object.fromEntries(
    ours.series.map((s) => [`${s.keywords.SeriesInstanceUID} ${relative(copy, s.dir)}`, s.files]),
  );
  assert.deepEqual(mine, theirs);
  assert.equal(ours.series.length, 13);
  // Three studies of one patient hold a series in the same folder (MR1), one file each.
  const mr1 = ours.series.filter((s) => s.dir.endsWith('MR1'));
  assert.equal(new Set(mr1.map((s) => s.keywords.StudyInstanceUID)).size, 3);
  // TINY_ALPHA's 50 CT files carry no pixel data; the DICOMDIR files are no images either.
  assert.ok(!ours.series.some((s) => s.dir.includes('TINY_ALPHA')));
});

test('a file cut at any byte is skipped or read, never a crash', () => {
  const whole = readFileSync(join(tree, 'A', 'venous', 'v1.dcm'));
  const cut = join(dir, 'cut');
  mkdirSync(cut);
  for (let n = 0; n < whole.length; n += 3)
    writeFileSync(join(cut, `f${String(n).padStart(5, '0')}`), whole.subarray(0, n));
  const scan = scanDicomFolder(cut, { recursive: false });
  assert.equal(scan.counts.files, Math.ceil(whole.length / 3));
  // Cut inside the pixel data, a file still has its header: a series of those files.
  assert.ok(scan.series.length <= 1);
  assert.ok(scan.series.every((s) => s.keywords.SeriesInstanceUID === UID.ctVenous));
});

test('a raw volume whose first voxel reads like a DICOM tag is no data set', () => {
  const raw = join(dir, 'raw');
  mkdirSync(raw);
  const voxels = new Uint16Array(64 * 1024).map((_, i) => (i * 7919) % 4096);
  voxels[0] = 8; // (0008,xxxx) to a reader that looks at two bytes alone
  writeFileSync(join(raw, 'volume.raw'), voxels);
  const scan = scanDicomFolder(raw, { recursive: false });
  assert.deepEqual(scan.counts, { files: 1, dicom: 0, notSeries: 0 });
});
