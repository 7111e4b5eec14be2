// `--grep` chooses playbooks before any is compiled, as `--tag` does: a playbook that is not
// chosen cannot fail the run, while a cohort's cases are still chosen one by one.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { wbplay } from '../helpers/cohort.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-selection-'));
  await mkdir(join(dir, 'suite'));
  await writeFile(join(dir, 'suite', 'broken.yaml'), 'version: 1\nname: Broken\nsteps:\n  - lod: {}\n');
  await writeFile(join(dir, 'suite', 'good.yaml'), 'version: 1\nname: Good\nsteps:\n  - reinit\n');
  await writeFile(join(dir, 'suite', 'unnamed-smoke.yaml'), 'version: 1\nsteps:\n  - reinit\n');
  await writeFile(
    join(dir, 'suite', 'cohort.yaml'),
    'version: 1\nname: Cohort\nforeach: { list: [{ name: alpha }, { name: beta }] }\nsteps:\n  - reinit\n',
  );
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('--grep leaves out playbooks it does not choose before they are compiled', async () => {
  const good = await wbplay(['run', 'suite', '--grep', '^Good', '--out', 'o-good', '--reporter', 'line'], dir);
  assert.equal(good.code, 0, good.stderr);
  assert.match(good.stdout, /Good passed/);
  assert.doesNotMatch(good.stdout + good.stderr, /Broken|lod|Cohort|unnamed/);

  const byFile = await wbplay(['run', 'suite', '--grep', 'smoke', '--out', 'o-smoke', '--reporter', 'line'], dir);
  assert.equal(byFile.code, 0, byFile.stderr);
  assert.match(byFile.stdout, /unnamed-smoke passed/, 'a playbook without a name is matched by its file name');
});

test("--grep still chooses a cohort's cases one by one; a chosen broken playbook still fails", async () => {
  const beta = await wbplay(['run', 'suite', '--grep', 'beta', '--out', 'o-beta', '--reporter', 'line'], dir);
  assert.equal(beta.code, 0, beta.stderr);
  assert.match(beta.stdout, /Cohort › beta passed|beta passed/);
  assert.doesNotMatch(beta.stdout, /alpha/);

  const broken = await wbplay(['run', 'suite', '--grep', 'Broken', '--out', 'o-broken'], dir);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /suite\/broken\.yaml:4:5/);

  const none = await wbplay(['run', 'suite', '--grep', 'nothing-matches', '--out', 'o-none'], dir);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no case matches --grep\/--tag/);
});
