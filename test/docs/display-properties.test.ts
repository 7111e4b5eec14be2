// docs/display-properties.md: every playbook it shows runs on the reference workbench with the
// demo data, and its lists of presets and colour maps are the ones the code has.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { COLORMAPS, COLORMAPS_LEFT_OUT } from '../../src/client/lookup-tables.js';
import { LEVEL_WINDOW_PRESETS } from '../../src/client/level-window.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { root, wbplay } from '../helpers/cohort.js';

let dir = '';
let doc = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-display-doc-'));
  await writeDemoData(join(dir, 'demo'));
  doc = await readFile(join(root, 'docs', 'display-properties.md'), 'utf8');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const playbooks = (): string[] =>
  [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.startsWith('version: 1'));

test('every playbook the page shows runs and passes', async () => {
  const blocks = playbooks();
  assert.ok(blocks.length >= 4, `${blocks.length} playbooks`);
  for (const [i, text] of blocks.entries()) {
    const file = join(dir, `example-${i}.yaml`);
    await writeFile(file, text);
    const r = await wbplay(['run', file, '--out', join(dir, `out-${i}`), '--reporter', 'line'], dir, {
      WBPLAY_DEMO: join(dir, 'demo'),
    });
    assert.equal(r.code, 0, `example ${i + 1}:\n${text}\n${r.stdout}\n${r.stderr}`);
  }
});

test("the presets and colour maps the page lists are the code's", () => {
  const presets = [...doc.matchAll(/^\| ([A-Z][a-z]+(?: [A-Z][a-z]+)?) \| (-?\d+) \| (\d+) \|$/gm)].map((m) => [
    m[1],
    { level: Number(m[2]), window: Number(m[3]) },
  ]);
  assert.deepEqual(Object.fromEntries(presets), LEVEL_WINDOW_PRESETS);
  const table = /\| colour map \| how MITK builds it \|\n\|---\|---\|\n((?:\|.*\n)+)/.exec(doc)![1]!;
  const reproduced = table
    .trim()
    .split('\n')
    .map((row) => row.split('|')[1]!.trim());
  assert.deepEqual(reproduced, COLORMAPS);
  const leftOut = /Left out: ([^.]+)\./
    .exec(doc)![1]!
    .replace(/\n/g, ' ')
    .split(/, | and /);
  assert.deepEqual(leftOut.sort(), Object.keys(COLORMAPS_LEFT_OUT).sort());
});
