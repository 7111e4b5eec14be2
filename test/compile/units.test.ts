import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { stem } from '../../src/compile/foreach.js';
import { glob } from '../../src/compile/glob.js';
import { expand } from '../../src/compile/interpolate.js';
import { closest, editDistance } from '../../src/diagnostics/did-you-mean.js';
import { renderDiagnostic } from '../../src/diagnostics/render.js';
import { useColor } from '../../src/report/colors.js';
import { parseWindowAddress } from '../../src/steps/window-address.js';

test('edit distance counts a swap of neighbours as one edit; suggestions stay close', () => {
  assert.equal(editDistance('screnshot', 'screenshot'), 1);
  assert.equal(editDistance('axail', 'axial'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(closest('colour', ['color', 'opacity']), 'color');
  assert.equal(closest('zzz', ['color', 'opacity']), undefined);
});

test('window addresses', () => {
  assert.deepEqual(parseWindowAddress('stdmulti/3d'), {
    target: 'window',
    address: 'stdmulti/3d',
    editor: 'stdmulti',
    window: '3d',
    kind: '3d',
  });
  assert.deepEqual(parseWindowAddress('mxn/mxn__ct.axial-1'), {
    target: 'window',
    address: 'mxn/mxn__ct.axial-1',
    editor: 'mxn',
    window: 'mxn__ct.axial-1',
    kind: '2d',
  });
  assert.deepEqual(parseWindowAddress('mxn'), { target: 'editor', address: 'mxn', editor: 'mxn' });
  assert.deepEqual(parseWindowAddress('app'), { target: 'app', address: 'app' });
  assert.match((parseWindowAddress('apps') as { hint: string }).hint, /did you mean `app`\?/);
  assert.match((parseWindowAddress('mxn/1__x') as { message: string }).message, /not an MxN cell id/);
  assert.match((parseWindowAddress('stdmulti/axial/x') as { message: string }).message, /unknown StdMulti window/);
});

test('templates: whole-value types, defaults, escapes and exact offsets of problems', () => {
  const scope = {
    vars: new Map<string, string | number | boolean>([
      ['n', 3],
      ['out', 'o'],
    ]),
    env: { HOME_X: '/h', EMPTY: '' },
    study: { as: 'study', fields: { name: 's1', x: 1.5 } },
  };
  assert.deepEqual(expand('${n}', scope), { value: 3, problems: [] });
  assert.deepEqual(expand('${study.x}', scope), { value: 1.5, problems: [] });
  assert.deepEqual(expand('a-${n}', scope), { value: 'a-3', problems: [] });
  assert.deepEqual(expand('${env.HOME_X}/${out}', scope), { value: '/h/o', problems: [] });
  assert.deepEqual(expand('${env.EMPTY:-d} ${env.NONE:-x:y}', scope), { value: 'd x:y', problems: [] });
  assert.deepEqual(expand('$${n} costs $5', scope), { value: '${n} costs $5', problems: [] });
  const bad = expand('ab ${nn} ${study.nme}', scope);
  assert.deepEqual(
    bad.problems.map((p) => [p.code, p.offset, p.length, p.hint]),
    [
      ['UNKNOWN_VARIABLE', 3, 5, 'did you mean `n`?'],
      ['UNKNOWN_VARIABLE', 9, 12, 'did you mean `name`?'],
    ],
  );
  assert.equal(expand('${env.NONE}', scope).problems[0]?.code, 'UNSET_ENV');
  assert.equal(expand('${a b}', scope).problems[0]?.code, 'BAD_TEMPLATE');
});

test('study names from paths: the stem, with double extensions counted as one', () => {
  assert.equal(stem('/d/ct.nii.gz'), 'ct');
  assert.equal(stem('/d/scan.v2.nrrd'), 'scan.v2');
  assert.equal(stem('/d/study-001/'), 'study-001');
});

test('glob: *, ?, [..], {a,b}, ** and folders only with a trailing slash', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-glob-'));
  try {
    for (const f of ['a/s1/ct.nrrd', 'a/s2/ct.nrrd', 'a/s10/mr.nii.gz', 'b/deep/er/ct.nrrd', 'a/.hidden/ct.nrrd']) {
      await mkdir(join(dir, f, '..'), { recursive: true });
      await writeFile(join(dir, f), '');
    }
    const rel = (xs: string[]): string[] => xs.map((x) => x.slice(dir.length + 1));
    assert.deepEqual(rel(glob('a/s?/ct.nrrd', dir)), ['a/s1/ct.nrrd', 'a/s2/ct.nrrd']);
    assert.deepEqual(rel(glob('a/s[0-9]*/', dir)), ['a/s1', 'a/s10', 'a/s2']);
    assert.deepEqual(rel(glob('**/ct.nrrd', dir)), ['a/s1/ct.nrrd', 'a/s2/ct.nrrd', 'b/deep/er/ct.nrrd']);
    assert.deepEqual(rel(glob('a/*/{ct.nrrd,mr.nii.gz}', dir)), ['a/s1/ct.nrrd', 'a/s10/mr.nii.gz', 'a/s2/ct.nrrd']);
    assert.deepEqual(glob('nothing/*', dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('rendering: colour only on a terminal and never with NO_COLOR', () => {
  assert.equal(useColor({ isTTY: true }, {}), true);
  assert.equal(useColor({ isTTY: true }, { NO_COLOR: '1' }), false);
  assert.equal(useColor({ isTTY: false }, {}), false);
  const d = {
    code: 'UNKNOWN_STEP' as const,
    message: 'unknown step kind `x`',
    hint: 'h',
    span: { file: 'f.yaml', line: 2, col: 5, endLine: 2, endCol: 6 },
  };
  const source = (): string => 'version: 1\n  - x: 1\n';
  assert.ok(renderDiagnostic(d, { source, color: true }).includes('\u001b[1;31m'));
  assert.equal(
    renderDiagnostic(d, { source, color: false }),
    'error[UNKNOWN_STEP]: unknown step kind `x`\n --> f.yaml:2:5\n  |\n2 |   - x: 1\n  |     ^\n  = hint: h',
  );
});

test('layout documents: version 2.0 only, because every workbench generation accepts it', async () => {
  // Open question in the references: newer workbenches also take "3.0" (more link kinds), older
  // ones only "2.0". Playbooks are held to "2.0" so the same playbook runs on both.
  const { checkLayoutDocument } = await import('../../src/steps/layout-document.js');
  const cell = (id: string, group = 'main'): object => ({
    type: 'window',
    id,
    view_direction: 'axial',
    links: { selection: group },
  });
  const doc = (version: string, children: object[], extra: object = {}): object => ({
    version,
    ...extra,
    root: { type: 'split', orientation: 'horizontal', children },
  });
  assert.deepEqual(checkLayoutDocument(doc('2.0', [cell('mxn__a'), cell('mxn__b')])), {
    problems: [],
    cells: ['mxn__a', 'mxn__b'],
  });
  assert.match(checkLayoutDocument(doc('3.0', [cell('mxn__a')])).problems[0]?.message ?? '', /`version` must be "2.0"/);
  assert.match(
    checkLayoutDocument(doc('2.0', [cell('mxn__a'), cell('mxn__a')])).problems[0]?.message ?? '',
    /duplicate cell id `mxn__a`/,
  );
  const undeclared = checkLayoutDocument(doc('2.0', [cell('mxn__a', 'ct')], { groups: { mr: { select_all: true } } }));
  assert.deepEqual(
    undeclared.problems.map((p) => p.path),
    [['root', 'children', 0, 'links', 'selection']],
  );
  assert.match(
    checkLayoutDocument(doc('2.0', [cell('widget0')])).problems[0]?.message ?? '',
    /`id` `widget0` is not well formed/,
  );
});
