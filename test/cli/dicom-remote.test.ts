// A DICOM series loaded by a playbook through `wbplay serve` running as its own process, with its
// allowed directories elsewhere: the workbench cannot read the client's files, as a workbench on
// another machine cannot. The series arrives by direct transfer with all its slices and its level
// window, and the server's event log shows that nothing went by file reference.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeDemoDicom } from '../../src/sim/demo-dicom.js';
import type { WorkbenchEvent } from '../../src/sim/event-log.js';
import { spawnWbplay, wbplay } from '../helpers/cohort.js';

test('a DICOM series through wbplay serve by direct transfer arrives with all its slices and its level window', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-dicom-remote-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeDemoDicom(join(dir, 'data'));
  const allowed = join(dir, 'server-files');
  await mkdir(allowed);
  const events = join(dir, 'events.jsonl');
  const server = spawnWbplay(['serve', '--port', '0', '--allowed-dir', allowed, '--events', events], dir);
  t.after(async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`wbplay serve exited with ${code}: ${seen}`)));
  });

  await writeFile(
    join(dir, 'remote.yaml'),
    `version: 1
name: Remote DICOM
steps:
  - load:
      file: data/dicom-studies/P1/ST1
      where: { SeriesDescription: "*VENOUS*" }
      as: venous
  - expect_state: { of: node:venous, equals: { level_window: { level: 40, window: 400 } } }
  - expect_state: { of: node:venous, equals: { properties: { name: CT ABDOMEN / ABDOMEN VENOUS } } }
  - reinit: { nodes: [venous] }
  - screenshot: { of: stdmulti/coronal, save: "\${out}/coronal.png" }
`,
  );
  const run = await wbplay(['run', 'remote.yaml', '--url', url, '--out', 'out', '--reporter', 'line,json'], dir);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout + run.stderr, /sent as NRRD, 32 slices/);

  const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8')) as {
    cases: { steps: { resolvedArgs?: { sent?: string; slices?: number }; notices: string[] }[] }[];
  };
  const load = report.cases[0]!.steps[0]!;
  assert.equal(load.resolvedArgs?.sent, 'nrrd');
  assert.equal(load.resolvedArgs?.slices, 32);

  const uploads = (await readFile(events, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as WorkbenchEvent)
    .filter((e) => e.transfer !== undefined);
  assert.deepEqual(
    uploads.map((e) => [e.method, e.transfer, e.status]),
    [['POST', 'direct', 201]],
    'one upload, of the whole series',
  );
});
