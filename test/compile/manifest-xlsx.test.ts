// Workbook manifests made by another program: openpyxl (Debian's python3-openpyxl) writes them
// here, with the studies on a second sheet, dates, an empty row and formulas. openpyxl saves a
// formula without its value (it computes nothing), so the test stores the values the way Excel
// and LibreOffice save them, in the sheet's XML, and keeps one formula without to see the error.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { compilePlaybook, loadPlaybook } from '../../src/compile/index.js';
import { columnName, isoDate } from '../../src/compile/manifest-xlsx.js';
import { renderDiagnostics } from '../../src/diagnostics/render.js';
import { writeDemoData } from '../../src/sim/demo-data.js';

/** Debian's interpreter, where python3-openpyxl installs (a python3 earlier on PATH may lack it). */
const PYTHON = '/usr/bin/python3';
const haveOpenpyxl = spawnSync(PYTHON, ['-c', 'import openpyxl'], { stdio: 'ignore' }).status === 0;
if (!haveOpenpyxl && process.env.CI === 'true')
  throw new Error('python3-openpyxl is missing: .ci/run installs it, and CI runs the workbook tests');
const skip = haveOpenpyxl
  ? false
  : 'python3-openpyxl is not installed (apt-get install python3-openpyxl); CI runs these';

const WRITE = String.raw`
import datetime, sys, zipfile, openpyxl
out, kind = sys.argv[1], sys.argv[2]
wb = openpyxl.Workbook()
notes = wb.active
notes.title = 'Read me'
notes['A1'] = 'Cohort of the tumour study; the studies are on the next sheet.'
st = wb.create_sheet('Studies')
if kind == 'studies':
    st.append(['name', 'path', 'tumour_x', 'tumour_y', 'scan_date', 'scanned_at', 'double_x', 'note'])
    st.append(['p-01', 'scans/p-01', 12.5, -4, datetime.date(2024, 1, 15), datetime.datetime(2024, 1, 15, 9, 30), '=C2*2', 'first'])
    st.append([])
    st.append(['p-02', 'scans/p-02', -3.25, 7, datetime.date(2023, 12, 31), datetime.datetime(2023, 12, 31, 18, 5, 10), '=C4*2', None])
    st.append(['p-03', 'scans/p-03', 0, 0, datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29), '=C5*2', 'leap'])
    # The values Excel would have saved with the first two formulas; the third keeps none.
    cached = {b'<f>C2*2</f><v></v>': b'<f>C2*2</f><v>25</v>', b'<f>C4*2</f><v></v>': b'<f>C4*2</f><v>-6.5</v>'}
elif kind == 'twice':
    st.append(['name', 'tumour_x', 'tumour_x'])
    st.append(['p-01', 1, 2])
    cached = {}
elif kind == 'pasted':
    st.append(['name;path;tumour_x'])
    st.append(['p-01;scans/p-01;12,5'])
    cached = {}
wb.save(out + '.tmp')
with zipfile.ZipFile(out + '.tmp') as zin, zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        data = zin.read(item.filename)
        if item.filename == 'xl/worksheets/sheet2.xml':
            for a, b in cached.items():
                data = data.replace(a, b)
        zout.writestr(item, data)
`;

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-manifest-xlsx-'));
  await mkdir(join(dir, 'cohort'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A workbook written by openpyxl into cohort/, and a playbook beside cohort/ reading it. */
async function workbookPlaybook(kind: string, foreach: string, steps: string): Promise<string> {
  execFileSync(PYTHON, ['-c', WRITE, join(dir, 'cohort', `${kind}.xlsx`), kind]);
  const file = join(dir, `${kind}.yaml`);
  await writeFile(file, `version: 1\nforeach: { xlsx: cohort/${kind}.xlsx${foreach} }\nsteps:\n${steps}`);
  return file;
}

function errors(file: string): string {
  const result = compilePlaybook(file, { env: {}, displayRoot: dir, checkFiles: false });
  assert.ok(result.diagnostics.length > 0, 'the playbook has errors');
  return renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color: false });
}

const POSITION = '  - position: ["${study.double_x}", "${study.tumour_y}", 0]\n';

test(
  'studies from the second sheet of an openpyxl workbook: numbers, ISO dates, saved formula values',
  { skip },
  async () => {
    const file = await workbookPlaybook(
      'studies',
      ', sheet: Studies',
      `${POSITION}  - screenshot: { of: stdmulti/axial, save: "out/\${study.name}-\${study.scan_date}.png" }\n`,
    );
    const result = compilePlaybook(file, { env: {}, displayRoot: dir, checkFiles: false });
    // The third study's formula has no saved value: every other study is read first, then that error.
    assert.match(
      renderDiagnostics(result.diagnostics, { source: () => undefined, color: false }),
      /cell G5 of `Studies`: the formula =C5\*2 has no saved value\n --> cohort\/studies\.xlsx:5:7\n/,
    );
  },
);

test('a workbook whose formulas were saved with their values compiles, row by row', { skip }, async () => {
  const file = await workbookPlaybook(
    'studies',
    ', sheet: Studies',
    `${POSITION}  - screenshot: { of: stdmulti/axial, save: "out/\${study.name}-\${study.scan_date}.png" }\n`,
  );
  // Drop the last row (the one whose formula has no value) with openpyxl, which keeps the others' values.
  execFileSync(PYTHON, [
    '-c',
    'import sys, zipfile, re\np = sys.argv[1]\nwith zipfile.ZipFile(p) as z: items = [(i, z.read(i.filename)) for i in z.infolist()]\nwith zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:\n    for i, d in items:\n        if i.filename == "xl/worksheets/sheet2.xml": d = re.sub(rb"<row r=\\"5\\".*?</row>", b"", d)\n        z.writestr(i, d)\n',
    join(dir, 'cohort', 'studies.xlsx'),
  ]);
  const plan = loadPlaybook(file, { env: {}, displayRoot: dir, checkFiles: false });
  assert.deepEqual(
    plan.cases.map((c) => c.study),
    [
      {
        name: 'p-01',
        path: join(dir, 'cohort', 'scans', 'p-01'),
        dir: join(dir, 'cohort', 'scans'),
        tumour_x: 12.5,
        tumour_y: -4,
        scan_date: '2024-01-15',
        scanned_at: '2024-01-15T09:30:00',
        double_x: 25,
        note: 'first',
      },
      {
        name: 'p-02',
        path: join(dir, 'cohort', 'scans', 'p-02'),
        dir: join(dir, 'cohort', 'scans'),
        tumour_x: -3.25,
        tumour_y: 7,
        scan_date: '2023-12-31',
        scanned_at: '2023-12-31T18:05:10',
        double_x: -6.5,
        note: '',
      },
    ],
  );
  assert.deepEqual(plan.cases[1]?.steps[0]?.args, { at: [-6.5, 7, 0] });
  assert.equal(plan.cases[0]?.outputs[0], join(dir, 'out', 'p-01-2024-01-15.png'));
});

test('the first sheet by default; a sheet that does not exist names the ones that do', { skip }, async () => {
  const first = await workbookPlaybook('studies', '', POSITION);
  assert.match(
    errors(first),
    /the manifest has no `name` or `path` column; it read 1 column: `Cohort of the tumour study/,
  );
  const wrong = await workbookPlaybook('studies', ', sheet: Patients', POSITION);
  assert.match(
    errors(wrong),
    /error\[FOREACH_SOURCE\]: the workbook has no sheet `Patients`\n --> studies\.yaml:2:46\n[^]*hint: its sheets are `Read me`, `Studies`/,
  );
});

test('a column named twice is an error at its cell', { skip }, async () => {
  const file = await workbookPlaybook('twice', ', sheet: Studies', POSITION);
  assert.match(
    errors(file),
    /the column `tumour_x` is named twice \(columns 2 and 3\) \(sheet `Studies`, row 1\)\n --> cohort\/twice\.xlsx:1:3\n/,
  );
});

test('CSV lines pasted into one column: the hint names the delimiter that would split them', { skip }, async () => {
  const file = await workbookPlaybook('pasted', ', sheet: Studies', POSITION);
  assert.match(
    errors(file),
    /it read 1 column: `name;path;tumour_x`[^]*hint: the header cell `name;path;tumour_x` holds `;`/,
  );
});

test('a workbook that is not one is an error, not a crash', async () => {
  await writeFile(join(dir, 'cohort', 'broken.xlsx'), 'name,path\na,b\n');
  const file = join(dir, 'broken.yaml');
  await writeFile(file, `version: 1\nforeach: { xlsx: cohort/broken.xlsx }\nsteps:\n${POSITION}`);
  assert.match(
    errors(file),
    /the workbook is not an Excel workbook \(\.xlsx\): it is not a zip archive, as every \.xlsx is \(a CSV file or a text file\?\)\n --> cohort\/broken\.xlsx:1:1\n/,
  );
});

test("the demo cohort's workbook opens in openpyxl with the cells of its CSV", { skip }, async () => {
  const demo = join(dir, 'demo');
  await writeDemoData(demo, { cohort: 3, seed: 2 });
  const cells = execFileSync(
    PYTHON,
    [
      '-c',
      'import sys, openpyxl\nws = openpyxl.load_workbook(sys.argv[1])["Studies"]\nfor row in ws.iter_rows(values_only=True): print(",".join(str(v) for v in row))',
      join(demo, 'studies.xlsx'),
    ],
    { encoding: 'utf8' },
  );
  const csv = await readFile(join(demo, 'studies.csv'), 'utf8');
  // Python prints a whole number stored as a float as 12.0 where the CSV says 12.
  assert.equal(cells.replace(/\.0(?=,|\n)/g, ''), csv);
});

test('dates as ISO 8601 without a zone; column letters', () => {
  assert.equal(isoDate(new Date(Date.UTC(2024, 0, 15))), '2024-01-15');
  assert.equal(isoDate(new Date(Date.UTC(2024, 0, 15, 9, 30))), '2024-01-15T09:30:00');
  assert.equal(isoDate(new Date(Date.UTC(2024, 0, 15, 9, 30, 0, 250))), '2024-01-15T09:30:00.250');
  assert.deepEqual([1, 26, 27, 52, 703].map(columnName), ['A', 'Z', 'AA', 'AZ', 'AAA']);
});
