import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { readXlsxManifest } from '../../src/compile/manifest-xlsx.js';
import { STUDY_FILES, studyName, writeDemoData } from '../../src/sim/demo-data.js';
import { readImageFile } from '../../src/volume/read-image.js';
import { worldBounds, worldToIndex, type Volume } from '../../src/volume/volume.js';
import { assertGeometry, withTempDir } from '../volume/fixtures.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'demo-data', ...args], {
    encoding: 'utf8',
    cwd: ROOT,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function valueAt(v: Volume, world: [number, number, number], frame = 0): number {
  const [i, j, k] = worldToIndex(v, world).map(Math.round) as [number, number, number];
  return v.frames[frame]![i + v.dims[0] * (j + v.dims[1] * k)]!;
}

test('one study: CT, its NIfTI twin, label, MR and 4D perfusion with the documented grids', async () => {
  await withTempDir(async (dir) => {
    const result = await writeDemoData(dir);
    assert.deepEqual((await readdir(dir)).sort(), [...STUDY_FILES].sort());
    const ct = await readImageFile(join(dir, 'ct.nrrd'));
    // The bounds a real workbench reported for this grid.
    assert.deepEqual(worldBounds(ct), { min: [-0.5, -0.5, -1.25], max: [95.5, 95.5, 78.75] });
    assert.equal(ct.componentType, 'int16');
    assert.equal(ct.segmentation, undefined);
    assert.equal(ct.range[0], -1000);
    assert.ok(new Set(ct.frames[0]).size > 20, 'noise makes it more than a few-valued image');

    const twin = await readImageFile(join(dir, 'ct.nii.gz'));
    assertGeometry(twin, ct);
    assert.deepEqual(twin.frames[0], ct.frames[0]);

    // Orientation cues: the marker is anterior-left and superior, the spine posterior.
    assert.ok(valueAt(ct, [65.6, 29, 64]) > 900, 'marker');
    assert.ok(valueAt(ct, [100 - 65.6, 29, 64]) < 100, 'no marker on the right');
    assert.ok(valueAt(ct, [44, 69, 40]) > 600, 'spine, posterior');
    assert.ok(valueAt(ct, [44, 31, 40]) < 100, 'no spine anteriorly');

    const label = await readImageFile(join(dir, 'tumour-label.nrrd'));
    const groups = label.segmentation?.groups ?? [];
    assert.deepEqual(
      groups.map((g) => g.labels.map((l) => [l.value, l.name])),
      [
        [
          [1, 'tumour'],
          [2, 'organ'],
        ],
      ],
      'a MITK segmentation of one group',
    );
    assert.equal(label.componentType, 'uint16');
    assertGeometry(label, ct);
    assert.deepEqual(new Set(label.frames[0]), new Set([0, 1, 2]));
    const [tx, ty, tz] = [result.studies[0]!.tumour_x, result.studies[0]!.tumour_y, result.studies[0]!.tumour_z];
    assert.equal(valueAt(label, [tx, ty, tz]), 1);
    assert.ok(Math.abs(valueAt(ct, [tx, ty, tz]) - 120) <= 6, 'tumour ~120 HU');

    const mr = await readImageFile(join(dir, 'mr.nii.gz'));
    assert.deepEqual(mr.dims, [80, 80, 40]);
    assertGeometry(mr, { spacing: [1.2, 1.2, 2], origin: [95, 0, 0], direction: [-1, 0, 0, 0, 1, 0, 0, 0, 1] });
    assert.ok(mr.range[0] === 0 && mr.range[1] > 1000 && mr.range[1] < 1300, `MR range ${mr.range.join('..')}`);
    assert.ok(valueAt(mr, [tx, ty, tz]) > 1000, 'the tumour is bright in the MR at the same world point');

    for (const name of ['perfusion-4d.nrrd', 'perfusion-4d.nii.gz']) {
      const perfusion = await readImageFile(join(dir, name));
      assert.deepEqual(perfusion.dims, [48, 48, 16]);
      assert.equal(perfusion.frames.length, 10);
      assert.equal(perfusion.timeStepMs, 500);
      const curve = perfusion.frames.map((_, t) => valueAt(perfusion, [tx, ty, tz], t));
      const peak = curve.indexOf(Math.max(...curve));
      assert.ok(peak > 0 && peak < 9, `the tumour rises then falls: ${curve.join(' ')}`);
      assert.ok(curve[peak]! - curve[0]! > 150);
    }
  });
});

test('a cohort: zero-padded studies that differ, with a CSV, JSON and Excel index', async () => {
  await withTempDir(async (dir) => {
    await writeDemoData(dir, { cohort: 3, seed: 9 });
    assert.deepEqual((await readdir(dir)).sort(), [
      'studies.csv',
      'studies.json',
      'studies.xlsx',
      'study-001',
      'study-002',
      'study-003',
    ]);
    const csv = (await readFile(join(dir, 'studies.csv'), 'utf8')).trim().split('\n');
    assert.equal(csv[0], 'name,path,tumour_x,tumour_y,tumour_z,tumour_radius_mm');
    const json = JSON.parse(await readFile(join(dir, 'studies.json'), 'utf8')) as Record<string, string | number>[];
    assert.equal(json.length, 3);
    json.forEach((row, i) => assert.equal(csv[i + 1], Object.values(row).join(',')));
    assert.equal(new Set(json.map((r) => `${r.tumour_x},${r.tumour_y},${r.tumour_z},${r.tumour_radius_mm}`)).size, 3);
    const cts = await Promise.all(json.map((r) => readFile(join(dir, String(r.path), 'ct.nrrd'))));
    assert.notDeepEqual(cts[0], cts[1]);
    assert.notDeepEqual(cts[1], cts[2]);
    for (const row of json) {
      const label = await readImageFile(join(dir, String(row.path), 'tumour-label.nrrd'));
      assert.equal(
        valueAt(label, [Number(row.tumour_x), Number(row.tumour_y), Number(row.tumour_z)]),
        1,
        `${row.name} tumour where the index says`,
      );
    }
  });
  assert.equal(studyName(0, 24), 'study-001');
});

test('the cohort workbook lists the same studies as the CSV, read back as a playbook reads them', async () => {
  await withTempDir(async (dir) => {
    await writeDemoData(dir, { cohort: 3, seed: 9 });
    const over = async (source: string): Promise<unknown[]> => {
      const file = join(dir, `${source}.yaml`);
      await writeFile(file, `version: 1\nforeach: { ${source}: studies.${source} }\nsteps:\n  - position: [0, 0, 0]\n`);
      return loadPlaybook(file, { env: {} }).cases.map((c) => c.study);
    };
    const fromCsv = await over('csv');
    assert.equal(fromCsv.length, 3);
    assert.deepEqual(await over('xlsx'), fromCsv);
  });
  await withTempDir(async (dir) => {
    await writeDemoData(join(dir, 'a'), { cohort: 2, seed: 4 });
    await writeDemoData(join(dir, 'b'), { cohort: 2, seed: 4 });
    const cells = async (d: string): Promise<string> =>
      JSON.stringify(readXlsxManifest(join(dir, d, 'studies.xlsx'), undefined));
    assert.equal(await cells('a'), await cells('b'), 'one seed, one workbook');
  });
  assert.equal(studyName(1499, 1500), 'study-1500');
  assert.equal(studyName(0, 1500), 'study-0001');
});

test('the same seed writes the same bytes; another seed a different cohort', async () => {
  await withTempDir(async (dir) => {
    await writeDemoData(join(dir, 'a'), { cohort: 2, seed: 4 });
    await writeDemoData(join(dir, 'b'), { cohort: 2, seed: 4 });
    await writeDemoData(join(dir, 'c'), { cohort: 2, seed: 5 });
    for (const file of ['studies.csv', ...STUDY_FILES.map((f) => `study-002/${f}`)]) {
      assert.deepEqual(await readFile(join(dir, 'a', file)), await readFile(join(dir, 'b', file)), file);
    }
    assert.notEqual(
      await readFile(join(dir, 'a', 'studies.csv'), 'utf8'),
      await readFile(join(dir, 'c', 'studies.csv'), 'utf8'),
    );
  });
});

test('wbplay demo-data writes its files, prints them and leaves other files alone', async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, 'notes.txt'), 'keep me');
    const single = cli(dir);
    assert.equal(single.status, 0, single.stderr);
    // A file a line, then three for the DICOM export and tree (src/sim/demo-dicom.ts).
    assert.equal(single.stdout.trim().split('\n').length, STUDY_FILES.length + 3);
    for (const file of STUDY_FILES) assert.match(single.stdout, new RegExp(`wrote .*${file.replace('.', '\\.')}`));
    assert.match(single.stdout, /wrote .*dicom\/ct\/ \(DICOM CT series, 32 slices\)/);
    assert.match(single.stdout, /wrote .*dicom-studies\/ \(DICOM: 3 patients, 4 studies, 5 series, 168 files\)/);
    assert.equal(await readFile(join(dir, 'notes.txt'), 'utf8'), 'keep me');
    assert.deepEqual((await readdir(dir)).sort(), [...STUDY_FILES, 'dicom', 'dicom-studies', 'notes.txt'].sort());

    const cohort = cli(join(dir, 'cohort'), '--cohort', '2', '--seed', '3');
    assert.equal(cohort.status, 0, cohort.stderr);
    const lines = cohort.stdout.trim().split('\n');
    assert.match(lines[0]!, /^study-001: tumour at \(.+\) mm, radius .+ mm, 6 files in /);
    assert.match(lines[1]!, /^study-002: /);
    assert.match(lines[2]!, /studies\.csv, .*studies\.json and .*studies\.xlsx/);
  });
});

test('wbplay demo-data refuses bad usage with exit code 2 and a clear message', async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, 'file');
    await writeFile(file, 'x');
    const cases: [string[], RegExp][] = [
      [[dir, '--cohort', '0'], /--cohort must be a whole number of studies \(1 or more\), got '0'/],
      [[dir, '--cohort', 'three'], /--cohort must be a whole number/],
      [[dir, '--seed', '-4'], /--seed must be a whole number/],
      [[dir, '--cohort', '10000'], /--cohort is at most 9999/],
      [[file], /exists and is not a directory/],
      [[], /missing required argument 'dir'/],
    ];
    for (const [args, pattern] of cases) {
      const run = cli(...args);
      assert.equal(run.status, 2, args.join(' '));
      assert.match(run.stderr, pattern);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.equal(await readFile(file, 'utf8'), 'x');
  });
});
