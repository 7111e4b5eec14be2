import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compilePlaybook, formatPlan, loadPlaybook } from '../../src/compile/index.js';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { writeFileIn } from '../helpers/files.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-sheet-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function playbook(name: string, text: string): Promise<string> {
  return writeFileIn(dir, name, text);
}

/** Two studies, each saving an axial and a 3D screenshot; `sheet` is the `contact_sheet` block. */
function cohort(sheet: string): string {
  return `version: 1
vars:
  out: shots
foreach:
  list: [{ name: alpha, age: 61 }, { name: beta, age: 47 }]
${sheet}
steps:
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${study.name}/axial.png" }
  - screenshot: { of: stdmulti/3d, save: "\${out}/\${study.name}/3d.png" }
`;
}

function errors(path: string): Diagnostic[] {
  return compilePlaybook(path, { env: {}, displayRoot: dir, checkFiles: false }).diagnostics;
}

function where(
  d: Diagnostic | undefined,
): [string | undefined, number | undefined, number | undefined, number | undefined, number | undefined] {
  return [d?.code, d?.span?.line, d?.span?.col, d?.span?.endLine, d?.span?.endCol];
}

test('tiles and labels are expanded per study, save once; columns and tile width are kept', async () => {
  const file = await playbook(
    'ok.yaml',
    cohort(
      'contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  label: "${study.name} (${study.age})"\n  save: "${out}/sheet.png"\n  columns: 4\n  tile_width: 128',
    ),
  );
  const plan = loadPlaybook(file, { env: {}, displayRoot: dir });
  assert.deepEqual(plan.contact_sheet, {
    save: join(dir, 'shots', 'sheet.png'),
    columns: 4,
    tile_width: 128,
    tiles: [
      { case: 'alpha', file: join(dir, 'shots', 'alpha', 'axial.png'), label: 'alpha (61)' },
      { case: 'beta', file: join(dir, 'shots', 'beta', 'axial.png'), label: 'beta (47)' },
    ],
  });
  // Every tile is one of its own case's outputs.
  for (const [i, t] of plan.contact_sheet?.tiles.entries() ?? []) assert.ok(plan.cases[i]?.outputs.includes(t.file));
  assert.match(
    formatPlan(plan),
    /\nContact sheet of 2 tiles \(4 columns, tiles 128 px wide\) to .*\/shots\/sheet\.png\n {2}alpha {2}.*\/alpha\/axial\.png {2}label=alpha \(61\)\n/,
  );
});

test('without a label a tile is captioned with its case', async () => {
  const file = await playbook(
    'nolabel.yaml',
    cohort('contact_sheet: { tile: "${out}/${study.name}/3d.png", save: sheet.png }'),
  );
  const plan = loadPlaybook(file, { env: {}, displayRoot: dir });
  assert.deepEqual(
    plan.contact_sheet?.tiles.map((t) => t.label),
    ['alpha', 'beta'],
  );
  assert.equal(plan.contact_sheet?.columns, undefined);
  assert.equal(plan.contact_sheet?.save, join(dir, 'sheet.png'));
});

test('a playbook without studies has no contact sheet: the error is on the key', async () => {
  const file = await playbook(
    'single.yaml',
    'version: 1\ncontact_sheet:\n  tile: a.png\n  save: sheet.png\nsteps:\n  - screenshot: { of: app, save: a.png }\n',
  );
  const found = errors(file);
  assert.deepEqual(found.map(where), [['NEEDS_FOREACH', 2, 1, 2, 14]]);
});

test('a tile that no screenshot of the case saves is an error at the tile, said once for all studies', async () => {
  const file = await playbook(
    'wrong-tile.yaml',
    cohort('contact_sheet:\n  tile: "${out}/${study.name}/axail.png"\n  save: sheet.png'),
  );
  const found = errors(file);
  assert.deepEqual(found.map(where), [['UNKNOWN_TILE', 7, 9, 7, 41]]);
  assert.equal(
    found[0]?.message,
    'no screenshot step of study `alpha` saves its tile `shots/alpha/axail.png` (nor for 1 other study)',
  );
  assert.equal(found[0]?.hint, 'did you mean `shots/alpha/axial.png`?');
  // An output of another study is not this study's tile.
  const other = await playbook(
    'other-tile.yaml',
    cohort('contact_sheet:\n  tile: "${out}/alpha/axial.png"\n  save: sheet.png'),
  );
  const again = errors(other);
  assert.deepEqual(again.map(where), [['UNKNOWN_TILE', 7, 9, 7, 33]]);
  assert.match(again[0]?.message ?? '', /study `beta` saves its tile `shots\/alpha\/axial\.png`/);
});

test('a sheet saved over a screenshot collides with it', async () => {
  const file = await playbook(
    'collide.yaml',
    cohort('contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  save: "${out}/beta/3d.png"'),
  );
  const found = errors(file);
  assert.deepEqual(found.map(where), [['OUTPUT_COLLISION', 8, 9, 8, 29]]);
  assert.match(found[0]?.message ?? '', /would overwrite `shots\/beta\/3d\.png`, a screenshot of study `beta`/);
});

test('save cannot use the study: the error is on the `${study...}` characters', async () => {
  const file = await playbook(
    'study-save.yaml',
    cohort('contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  save: "${out}/${study.name}-sheet.png"'),
  );
  const found = errors(file);
  assert.deepEqual(found.map(where), [['STUDY_IN_SAVE', 8, 17, 8, 30]]);
  // A renamed study variable is caught by its name; an escaped `$${` is a literal.
  const renamed = await playbook(
    'study-save-as.yaml',
    'version: 1\nforeach: { list: [a, b], as: s }\ncontact_sheet: { tile: "${s.name}.png", save: "$${s.name}/${ s.name }.png" }\nsteps:\n  - screenshot: { of: app, save: "${s.name}.png" }\n',
  );
  assert.deepEqual(errors(renamed).map(where), [['STUDY_IN_SAVE', 3, 59, 3, 70]]);
});

test('a JPEG tile is refused: the sheet is made of PNG screenshots', async () => {
  const file = await playbook(
    'jpeg.yaml',
    'version: 1\nforeach: { list: [a, b] }\ncontact_sheet: { tile: "${study.name}.jpg", save: sheet.png }\nsteps:\n  - screenshot: { of: app, save: "${study.name}.jpg" }\n',
  );
  assert.deepEqual(errors(file).map(where), [['FORMAT_MISMATCH', 3, 24, 3, 43]]);
});

test('the schema checks the fields; an included playbook cannot have a contact sheet', async () => {
  const bad = await playbook(
    'bad-fields.yaml',
    cohort('contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  save: sheet.png\n  columns: 0\n  colour: red'),
  );
  assert.deepEqual(
    errors(bad).map((d) => [d.code, d.span?.line]),
    [
      ['OUT_OF_RANGE', 9],
      ['UNKNOWN_FIELD', 10],
    ],
  );
  const missing = await playbook('no-save.yaml', cohort('contact_sheet:\n  tile: "${out}/${study.name}/axial.png"'));
  assert.deepEqual(
    errors(missing).map((d) => d.code),
    ['MISSING_FIELD'],
  );
  await playbook('part.yaml', 'version: 1\ncontact_sheet: { tile: a.png, save: b.png }\nsteps:\n  - reinit\n');
  const outer = await playbook(
    'outer.yaml',
    'version: 1\nforeach: { list: [a] }\nsteps:\n  - include: { file: part.yaml }\n',
  );
  assert.deepEqual(
    errors(outer).map((d) => [d.code, d.span?.file, d.span?.line, d.span?.col]),
    [['INCLUDE_SHAPE', 'part.yaml', 2, 1]],
  );
});

test('an unknown study field in a tile or label is reported once, at its characters', async () => {
  const file = await playbook(
    'field.yaml',
    cohort('contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  label: "${study.sex}"\n  save: sheet.png'),
  );
  const found = errors(file);
  assert.deepEqual(found.map(where), [['UNKNOWN_VARIABLE', 8, 11, 8, 23]]);
});

test('studies not known yet (no --check-files) still give one placeholder tile', async () => {
  const file = await playbook(
    'later.yaml',
    'version: 1\nforeach: { csv: nowhere.csv }\ncontact_sheet: { tile: "out/${study.name}.png", save: out/sheet.png }\nsteps:\n  - screenshot: { of: app, save: "out/${study.name}.png" }\n',
  );
  const result = compilePlaybook(file, { env: {}, checkFiles: false });
  assert.deepEqual(result.diagnostics, []);
  assert.deepEqual(result.plan?.contact_sheet?.tiles, [
    { case: '<study.name>', file: join(dir, 'out', '<study.name>.png'), label: '<study.name>' },
  ]);
});

test('the plan of playbooks/cohort.yaml has a sheet of one axial tile per study', async () => {
  const data = join(dir, 'cohort');
  await writeDemoData(data, { cohort: 5 });
  const plan = loadPlaybook(join(root, 'playbooks', 'cohort.yaml'), { vars: { data }, env: {}, displayRoot: root });
  const sheet = plan.contact_sheet;
  assert.ok(sheet);
  assert.equal(sheet.tiles.length, 5);
  assert.equal(sheet.save, join(root, 'wbplay-out', 'cohort', 'contact-sheet.png'));
  assert.deepEqual(
    sheet.tiles.map((t) => t.case),
    plan.cases.map((c) => c.id),
  );
  for (const [i, t] of sheet.tiles.entries()) {
    assert.equal(t.label, plan.cases[i]?.name);
    assert.equal(t.file, join(root, 'wbplay-out', 'cohort', t.label, 'axial.png'));
  }
});

test('checkOnly (wbplay validate) finds the same contact sheet problems', async () => {
  for (const sheet of [
    'contact_sheet:\n  tile: "${out}/${study.name}/axail.png"\n  save: "${out}/alpha/3d.png"',
    'contact_sheet:\n  tile: "${out}/${study.name}/axial.png"\n  save: "${study.name}.png"',
  ]) {
    const file = await playbook('check-only.yaml', cohort(sheet));
    const full = compilePlaybook(file, { env: {}, checkFiles: false });
    const check = compilePlaybook(file, { env: {}, checkFiles: false, checkOnly: true });
    assert.ok(full.diagnostics.length > 0);
    assert.deepEqual(check.diagnostics, full.diagnostics);
  }
});
