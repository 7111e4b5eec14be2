// `wbplay run --launch`: wbplay starts the workbench itself, one per worker, with a fresh
// token, and stops it afterwards. The executable here is a stand-in MITK that reads the
// preferences override it is given and serves the reference workbench as configured there
// (test/helpers/stand-in-mitk.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RunResultTree } from '../../src/result/result.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { standInMitk } from '../helpers/stand-in-mitk.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src', 'cli', 'main.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-launch-run-'));
  await writeDemoData(join(dir, 'demo'), { cohort: 3 });
  await standInMitk(dir);
  await writeFile(
    join(dir, 'cohort.yaml'),
    'version: 1\nname: Launched\nforeach:\n  csv: demo/studies.csv\nsteps:\n  - load: { file: "${study.path}/ct.nrrd", as: ct }\n  - reinit\n  - screenshot: { of: stdmulti/axial, save: "shots/${study.name}.png" }\n',
  );
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('--launch --workers 2 starts two workbenches with their own ports and tokens, runs the cohort on both, and stops them', async () => {
  const log = join(dir, 'ports.log');
  const r = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, main, 'run', 'cohort.yaml', '--launch', '--workers', '2', '--out', 'out', '--reporter', 'line'],
      { cwd: dir, env: { PATH: process.env.PATH, MITK_WORKBENCH: join(dir, 'MitkWorkbench'), STAND_IN_LOG: log } },
      (err, _stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /embedded/);
  const ports = (await readFile(log, 'utf8')).trim().split('\n');
  assert.equal(new Set(ports).size, 2, 'two workbenches on two ports');
  const result = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8')) as RunResultTree;
  assert.equal(result.summary.passed, 3);
  assert.deepEqual(
    new Set(result.cases.map((c) => c.workbench)),
    new Set(ports.map((p) => `launched http://localhost:${p}`)),
  );
  // Stopped: nothing answers on those ports any more.
  for (const port of ports) await assert.rejects(fetch(`http://localhost:${port}/api/v1/health`));
});
