// A path typed in the shell starts at the working folder, a bare folder name included, while a
// path written in the playbook starts at the playbook's folder.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-shell-paths-'));
  // The data beside the working folder's playbook folder, not inside it.
  await writeDemoData(join(dir, 'coh'));
  await mkdir(join(dir, 'playbooks'));
  await writeFile(
    join(dir, 'playbooks', 'p.yaml'),
    `version: 1
vars: { data: somewhere-else, name: axial }
steps:
  - load: { file: "\${data}/ct.nrrd", as: ct }
  - reinit
  - screenshot: { of: stdmulti/axial, save: "\${out}/\${name}.png" }
`,
  );
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('`--var data=coh` reads coh/ in the working folder, as `--var data=./coh` does', async () => {
  for (const value of ['coh', './coh']) {
    const r = await wbplay(['validate', 'playbooks/p.yaml', '--var', `data=${value}`], dir);
    assert.equal(r.code, 0, `${value}: ${r.stderr}`);
    assert.equal(r.stdout, 'OK playbooks/p.yaml\n');
  }
});

test('a bare name from the shell that is not a path prefix stays a name', async () => {
  const r = await wbplay(
    ['run', 'playbooks/p.yaml', '--var', 'data=coh', '--var', 'name=first', '--out', 'out', '--reporter', 'line'],
    dir,
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /out\/first\.png/);
});

test('an environment variable with a bare folder name at the start of a path starts at the working folder', async () => {
  await writeFile(
    join(dir, 'playbooks', 'env.yaml'),
    `version: 1
steps:
  - load: { file: "\${env.SCANS}/ct.nrrd", as: ct }
`,
  );
  const r = await wbplay(['validate', 'playbooks/env.yaml'], dir, { SCANS: 'coh' });
  assert.equal(r.code, 0, r.stderr);
});

test('a bare name written in the playbook still starts at the playbook folder', async () => {
  const r = await wbplay(['validate', 'playbooks/p.yaml', '--var', 'name=x'], dir);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /somewhere-else/);
});

test('`--var data=coh` finds a cohort manifest `${data}/studies.csv` in the working folder', async () => {
  assert.equal((await wbplay(['demo-data', 'cohort', '--cohort', '2'], dir)).code, 0);
  await writeFile(
    join(dir, 'playbooks', 'cohort.yaml'),
    `version: 1
vars: { data: ../nowhere }
foreach: { csv: "\${data}/studies.csv" }
steps:
  - load: { file: "\${study.path}/ct.nrrd", as: ct }
`,
  );
  const r = await wbplay(['validate', 'playbooks/cohort.yaml', '--var', 'data=cohort'], dir);
  assert.equal(r.code, 0, r.stderr);
});
