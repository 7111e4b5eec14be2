// A contact sheet of many studies is paginated: `per_sheet` tiles per numbered sheet, and an
// index naming each study's sheet; shards merge into the same pages an unsharded run draws.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadPlaybook } from '../../src/compile/index.js';
import { mergeReports } from '../../src/report/merge.js';
import { createReporters } from '../../src/report/factory.js';
import { runPlans } from '../../src/run/runner.js';
import { parseShard } from '../../src/run/shard.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { differingPixels, FAST_RETRY, pixels } from '../helpers/cohort.js';

const PLAYBOOK = [
  'version: 1',
  'name: Pages',
  'foreach:',
  '  csv: data/studies.csv',
  'contact_sheet:',
  '  tile: "${out}/${study.name}.png"',
  '  save: "${out}/sheet.png"',
  '  per_sheet: 2',
  '  columns: 2',
  'steps:',
  '  - load: { file: "${study.path}/ct.nrrd", as: ct }',
  '  - reinit',
  '  - screenshot: { of: stdmulti/axial, save: "${out}/${study.name}.png", width: 64, height: 64 }',
  '',
].join('\n');

test('five studies at two per sheet give three numbered sheets and an index; merged shards draw the same pages', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-pages-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeDemoData(join(dir, 'data'), { cohort: 5 });
  await writeFile(join(dir, 'pages.yaml'), PLAYBOOK);
  const run = async (out: string, shard?: string) => {
    const plan = loadPlaybook(join(dir, 'pages.yaml'), { vars: { out: join(dir, out) } });
    return runPlans({
      plans: [plan],
      workbenches: embeddedWorkbenches(1),
      reporter: createReporters(['json'], {
        outputDir: join(dir, out),
        stream: { write: () => true },
        isTTY: false,
        env: {},
      }),
      outputDir: join(dir, out),
      retry: FAST_RETRY,
      ...(shard ? { shard: parseShard(shard) } : {}),
    });
  };

  const whole = await run('whole');
  assert.equal(whole.status, 'passed');
  assert.deepEqual(
    whole.figures!.map((f) => [f.path, f.sheet!.page, f.sheet!.tiles.length]),
    [
      ['sheet-001.png', 1, 2],
      ['sheet-002.png', 2, 2],
      ['sheet-003.png', 3, 1],
    ],
  );
  const files = (await readdir(join(dir, 'whole'))).filter((f) => f.startsWith('sheet'));
  assert.deepEqual(files.sort(), ['sheet-001.png', 'sheet-002.png', 'sheet-003.png', 'sheet-index.csv']);
  const index = (await readFile(join(dir, 'whole', 'sheet-index.csv'), 'utf8')).trim().split('\n');
  assert.equal(index[0], 'sheet,case,label,tile');
  assert.equal(index.length, 6);
  assert.match(index[5]!, /^sheet-003\.png,study-005,/);

  for (const shard of ['1/2', '2/2']) assert.equal((await run(`shard-${shard[0]}`, shard)).status, 'passed');
  const merged = await mergeReports([join(dir, 'shard-1'), join(dir, 'shard-2')], join(dir, 'merged'));
  assert.deepEqual(
    merged.figures!.map((f) => [f.path, f.sheet!.tiles.map((x) => x.case)]),
    whole.figures!.map((f) => [f.path, f.sheet!.tiles.map((x) => x.case)]),
  );
  for (const page of ['sheet-001.png', 'sheet-002.png', 'sheet-003.png']) {
    assert.equal(
      differingPixels(await pixels(join(dir, 'merged', page)), await pixels(join(dir, 'whole', page))),
      0,
      page,
    );
  }
});
