// After a full run, goldens in the checks' folders that no check used are listed in the summary
// and the report; a run that left cases out lists none (it cannot tell).
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';

test('goldens no check used are listed after a full run, and only then', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-unused-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeDemoData(join(dir, 'data'));
  await writeFile(
    join(dir, 'p.yaml'),
    'version: 1\nname: Used\nsteps:\n  - load: { file: data/ct.nrrd, as: ct }\n  - reinit\n  - expect_image: { of: stdmulti/axial, golden: goldens/axial.png }\n',
  );
  assert.equal((await wbplay(['run', 'p.yaml', '--out', 'first'], dir)).code, 0);
  await copyFile(join(dir, 'goldens', 'axial.png'), join(dir, 'goldens', 'old-coronal.png'));
  await writeFile(join(dir, 'goldens', 'notes.txt'), 'not an image');

  const full = await wbplay(['run', 'p.yaml', '--out', 'full', '--reporter', 'line'], dir);
  assert.equal(full.code, 0, full.stderr);
  assert.match(full.stdout, /notice: 1 golden no check used \(obsolete\? delete them\): .*goldens\/old-coronal\.png/);
  const report = JSON.parse(await readFile(join(dir, 'full', 'report.json'), 'utf8')) as { unusedGoldens?: string[] };
  // Named from the project root (here the working folder), as reports name every golden.
  assert.deepEqual(report.unusedGoldens, ['goldens/old-coronal.png']);
  assert.match(await readFile(join(dir, 'full', 'report.html'), 'utf8'), /Golden no check used/);

  const filtered = await wbplay(['run', 'p.yaml', '--out', 'filtered', '--reporter', 'line', '--grep', 'Used'], dir);
  assert.equal(filtered.code, 0, filtered.stderr);
  assert.doesNotMatch(filtered.stdout, /no check used/);
});
