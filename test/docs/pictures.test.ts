// The pictures in the docs come from runs whose reports show no machine's folders: the report of
// docs/report.png names everything from its project's root, whatever folder the run was in.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pictureReport } from '../../scripts/report-picture.js';

test("the report in docs/report.png names its files from the project's root only", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-picture-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const html = await readFile(await pictureReport(dir), 'utf8');
  assert.ok(!html.includes(dir), 'the run folder shows in the report');
  assert.ok(!html.includes(tmpdir()), 'the temporary folder shows in the report');
  assert.match(html, /playbooks\/regression\.yaml/);
  assert.match(html, /wbplay accept wbplay-out/);
});
