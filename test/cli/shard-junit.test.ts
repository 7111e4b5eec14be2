// Shards run with `--reporter junit` still write report.json beside junit.xml, so the merge of
// their folders works: a named file reporter is added to the defaults, never replacing them.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { wbplay } from '../helpers/cohort.js';

test('merge-reports joins shards that were run with --reporter junit', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-shard-junit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'cohort.yaml'),
    'version: 1\nname: Cohort\nforeach: { list: [{ name: a }, { name: b }, { name: c }] }\nsteps:\n  - reinit\n',
  );
  for (const shard of ['1/2', '2/2']) {
    const out = `shard-${shard[0]}`;
    const run = await wbplay(['run', 'cohort.yaml', '--shard', shard, '--reporter', 'junit', '--out', out], dir);
    assert.equal(run.code, 0, run.stderr);
    for (const file of ['report.json', 'report.html', 'junit.xml']) await stat(join(dir, out, file));
  }
  const merged = await wbplay(['merge-reports', 'shard-1', 'shard-2', '--out', 'merged'], dir);
  assert.equal(merged.code, 0, merged.stderr);
  assert.match(merged.stdout, /merged 2 reports: 3 cases, 3 passed/);
  for (const file of ['report.json', 'report.html', 'junit.xml']) await stat(join(dir, 'merged', file));
});
