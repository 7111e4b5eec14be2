// CSV manifests as spreadsheets write them: Excel's German export, tab-separated text, and the
// mistakes a hand-edited file has, each reported at its line of the manifest.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { compilePlaybook, loadPlaybook } from '../../src/compile/index.js';
import { readCsvManifest } from '../../src/compile/manifest-csv.js';
import { decodeCsv } from '../../src/compile/manifest-source.js';
import { renderDiagnostics } from '../../src/diagnostics/render.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-manifest-csv-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const STEPS = 'steps:\n  - position: ["${study.tumour_x}", "${study.tumour_y}", 0]\n';

/** A playbook over `manifest` (written as bytes) with the given `foreach` options. */
async function playbookOver(name: string, manifest: string, options = ''): Promise<string> {
  await writeFile(join(dir, `${name}.csv`), manifest);
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, `version: 1\nforeach: { csv: ${name}.csv${options} }\n${STEPS}`);
  return file;
}

/** The errors of a playbook as the CLI prints them, paths shown from the test folder. */
function errors(file: string): string {
  const result = compilePlaybook(file, { env: {}, displayRoot: dir, checkFiles: false });
  assert.ok(result.diagnostics.length > 0, 'the playbook has errors');
  return renderDiagnostics(result.diagnostics, { source: (f) => result.sources.get(f), color: false });
}

test('a CSV as German Excel saves it: BOM, `;`, decimal commas, CRLF, an empty row', async () => {
  const text =
    '\uFEFFname;path;tumour_x;tumour_y;note\r\n' +
    'p-01;p-01;12,5;-4,25;"Befund; unauffällig"\r\n' +
    ';;;;\r\n' +
    'p-02;p-02;-3,75;1.5;"zwei\r\nZeilen"\r\n';
  const plan = loadPlaybook(await playbookOver('german', text), { env: {}, displayRoot: dir, checkFiles: false });
  assert.deepEqual(
    plan.cases.map((c) => [c.name, c.study?.tumour_x, c.study?.tumour_y, c.study?.note]),
    [
      ['p-01', 12.5, -4.25, 'Befund; unauffällig'],
      ['p-02', -3.75, 1.5, 'zwei\r\nZeilen'],
    ],
  );
  assert.equal(plan.cases[0]?.study?.path, join(dir, 'p-01'), "the path is resolved against the manifest's folder");
  assert.deepEqual(plan.cases[1]?.steps[0]?.args, { at: [-3.75, 1.5, 0] });
});

test("a CSV in Windows-1252, as Excel's plain CSV is saved on a German Windows, keeps its umlauts", async () => {
  const file = await playbookOver('ansi', '');
  await writeFile(
    join(dir, 'ansi.csv'),
    Buffer.from('name;path;tumour_x;tumour_y\r\nGröße;scans/München;1,5;2\r\n', 'latin1'),
  );
  const plan = loadPlaybook(file, { env: {}, displayRoot: dir, checkFiles: false });
  assert.equal(plan.cases[0]?.name, 'Größe');
  assert.equal(plan.cases[0]?.study?.path, join(dir, 'scans', 'München'));
  assert.equal(decodeCsv(Buffer.from('\uFEFFname\nÄ\n')), 'name\nÄ\n', 'UTF-8 with its byte-order mark dropped');
});

test('a decimal comma is a number only where `;` separates the fields', () => {
  const comma = readCsvManifest('name,x,y\na,"12,5",3\n');
  assert.ok('records' in comma);
  assert.deepEqual(comma.records[0], { name: 'a', x: '12,5', y: 3 });
  const semi = readCsvManifest('name;x;y;code\na;12,5;,5;1,2,3\n');
  assert.ok('records' in semi);
  assert.deepEqual(semi.records[0], { name: 'a', x: 12.5, y: 0.5, code: '1,2,3' });
});

test('tab-separated, found from the header line or given as `delimiter: "\\t"`', async () => {
  const text = 'name\tpath\ttumour_x\ttumour_y\na, b\ta\t1.5\t2\n';
  for (const options of ['', ', delimiter: "\\t"']) {
    const plan = loadPlaybook(await playbookOver('tabs', text, options), {
      env: {},
      displayRoot: dir,
      checkFiles: false,
    });
    assert.deepEqual(plan.cases[0]?.study?.tumour_x, 1.5);
    assert.equal(plan.cases[0]?.name, 'a, b', 'a comma inside a tab-separated field is text');
  }
});

test('the delimiter is the one the header line uses most, quotes left out', () => {
  const read = (text: string): unknown => {
    const m = readCsvManifest(text);
    return 'records' in m ? m.columns : m.message;
  };
  assert.deepEqual(read('name;path;"a,b,c"\nx;y;z\n'), ['name', 'path', 'a,b,c']);
  assert.deepEqual(read('name,path\nx;1,y\n'), ['name', 'path']);
  assert.deepEqual(read('path\nx\n'), ['path']);
});

test('RFC 4180: quoted fields with delimiters, doubled quotes and line breaks; blank lines skipped', () => {
  const m = readCsvManifest('name,path,note\r\na,x,"one, two"\r\n\r\nb,y,"say ""hi""\nthere"\n');
  assert.ok('records' in m);
  assert.deepEqual(m.records, [
    { name: 'a', path: 'x', note: 'one, two' },
    { name: 'b', path: 'y', note: 'say "hi"\nthere' },
  ]);
  assert.deepEqual(m.lines, [2, 4], 'each study remembers the line it starts on');
});

test('a ragged row is an error at its line, after a record that spans lines', async () => {
  const text = 'name,tumour_x,tumour_y\na,1,2\nb,"two\nlines",3\n\nc,4,5,6\nd,7,8\n';
  assert.equal(
    errors(await playbookOver('ragged', text)),
    [
      'error[FOREACH_SOURCE]: this row has 4 fields but the header has 3',
      ' --> ragged.csv:6:1',
      '  |',
      '6 | c,4,5,6',
      '  | ^',
      '  = hint: give every row one field per column, separated by `,`; quote a field that holds `,`',
      '',
      '1 error',
      '',
    ].join('\n'),
  );
  const short = errors(await playbookOver('short', 'name;tumour_x;tumour_y\r\na;1;2\r\nb;3\r\n'));
  assert.match(short, /this row has 2 fields but the header has 3\n --> short\.csv:3:1\n/);
});

test('an unterminated quote is an error at the line the quote opens on', async () => {
  const text = 'name,tumour_x,tumour_y\na,1,2\nb,"3,4\nc,5,6\n';
  assert.match(
    errors(await playbookOver('unterminated', text)),
    /a quoted field opens on this line and is never closed\n --> unterminated\.csv:3:1\n {2}\|\n3 \| b,"3,4\n/,
  );
});

test('a column named twice is an error at the second one in the header', async () => {
  assert.match(
    errors(await playbookOver('twice', 'name;tumour_x;tumour_y;tumour_x\n1;2;3;4\n')),
    /the column `tumour_x` is named twice \(columns 2 and 4\)\n --> twice\.csv:1:24\n {2}\|\n1 \| name;tumour_x;tumour_y;tumour_x\n {2}\| {24}\^\n/,
  );
});

test('no `name` or `path` column: the columns it read, and the delimiter that would split a cell', async () => {
  const semicolons = await playbookOver('semicolons', 'name;path;tumour_x;tumour_y\na;a;1;2\n', ', delimiter: ","');
  assert.equal(
    errors(semicolons),
    [
      'error[FOREACH_SOURCE]: the manifest has no `name` or `path` column; it read 1 column: `name;path;tumour_x;tumour_y`',
      ' --> semicolons.csv:1:1',
      '  |',
      '1 | name;path;tumour_x;tumour_y',
      '  | ^',
      '  = hint: the header cell `name;path;tumour_x;tumour_y` holds `;`: `delimiter: ";"` would split it into `name`, `path`, `tumour_x`, `tumour_y`',
      '',
      '1 error',
      '',
    ].join('\n'),
  );
  const other = errors(await playbookOver('other', 'id,tumour_x,tumour_y\na,1,2\n'));
  assert.match(other, /it read 3 columns: `id`, `tumour_x`, `tumour_y`/);
  assert.match(other, /hint: name a column `path`/);
});

test('a study with neither a name nor a path is an error at its line', async () => {
  assert.match(
    errors(await playbookOver('nameless', 'name,path,tumour_x,tumour_y\na,,1,2\n,,3,4\n')),
    /this study has neither a name nor a path\n --> nameless\.csv:3:1\n/,
  );
});

test('`sheet` belongs to workbooks and `delimiter` to CSV files', async () => {
  const sheet = errors(await playbookOver('sheet', 'name\na\n', ', sheet: Studies'));
  assert.match(
    sheet,
    /error\[EXCLUSIVE_FIELDS\]: `sheet` is an option of `xlsx` manifests, not of `csv`\n --> sheet\.yaml:2:35/,
  );
  const file = join(dir, 'json-delimiter.yaml');
  await writeFile(join(dir, 'studies.json'), '[{"name": "a"}]');
  await writeFile(file, `version: 1\nforeach: { json: studies.json, delimiter: ";" }\n${STEPS}`);
  assert.match(errors(file), /`delimiter` is an option of `csv` manifests, not of `json`/);
});
