// `wbplay run --watch`: a changed playbook and a changed data file each cause exactly one rerun
// on the same workbench from a clean scene, the figures that changed are named, and Ctrl-C ends
// it with the interrupted exit code.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { spawnWbplay } from '../helpers/cohort.js';

const playbook = (x: number): string =>
  [
    'version: 1',
    'name: Watched',
    'steps:',
    '  - load: { file: data/ct.nrrd, as: ct }',
    '  - reinit',
    `  - position: [${x}, 52, 36]`,
    '  - screenshot: { of: stdmulti/axial, save: "${out}/axial.png" }',
    '  - screenshot: { of: stdmulti/3d, save: "${out}/3d.png" }',
    '',
  ].join('\n');

test('an edit of the playbook and a touched data file each run it once more; Ctrl-C ends the watch with 130', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-watch-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeDemoData(join(dir, 'data'));
  await writeFile(join(dir, 'p.yaml'), playbook(56));
  const child = spawnWbplay(['run', 'p.yaml', '--watch', '--reporter', 'line', '--out', 'out'], dir);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const watching = (): number => out.match(/wbplay: watching \d+ files? for changes/g)?.length ?? 0;
  const until = async (n: number): Promise<void> => {
    const deadline = Date.now() + 30_000;
    while (watching() < n) {
      assert.ok(Date.now() < deadline, `no run ${n} within 30 s:\n${out}`);
      await sleep(50);
    }
  };
  try {
    await until(1);
    assert.match(out, /wbplay: 2 figures written/);
    assert.match(out, /watching 2 files/, 'the playbook and its data file');
    // The crosshair moves along x, so the axial view changes.
    await writeFile(join(dir, 'p.yaml'), playbook(40));
    await until(2);
    assert.match(out, /wbplay: figures changed: [^\n]*out\/axial\.png/);
    await writeFile(join(dir, 'data', 'ct.nrrd'), await readFile(join(dir, 'data', 'ct.nrrd')));
    await until(3);
    assert.match(out, /wbplay: no figure changed/);
    await sleep(800);
    assert.equal(watching(), 3, 'each change ran once');
    assert.equal(out.match(/Watched passed/g)?.length, 3, 'every run passed: each started from a clean scene');
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 130);
});
