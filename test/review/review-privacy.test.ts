// The review of a DICOM cohort shows what the report shows of a case and nothing more: the
// case name (UID hashes) and the fields the playbook reads, never the patient's name, ID or
// birth date, on the page's answers and in review.csv alike.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readRunResult } from '../../src/report/read-report.js';
import { startCaseReviewServer } from '../../src/review/case-review-server.js';
import { writeDemoDicom } from '../../src/sim/demo-dicom.js';
import { root, wbplay } from '../helpers/cohort.js';

const PATIENT = /DEMO00|Demo\^Patient|Patient One|2024\d{4}/;

test('a DICOM cohort: the page and review.csv show the case name and the fields the report shows, no patient', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-review-dicom-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const demo = join(dir, 'demo');
  await writeDemoDicom(demo);
  const out = join(dir, 'out');
  const r = await wbplay(['run', join(root, 'playbooks', 'dicom.yaml'), '--out', out, '--var', `out=${out}`], dir, {
    WBPLAY_DEMO: demo,
  });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const report = await readRunResult(out);
  const server = await startCaseReviewServer({ outputDir: out, reviewer: 'Ana' });
  t.after(() => server.close());
  const html = await (await fetch(server.url)).text();
  const token = /name="wbplay-review" content="([0-9a-f]+)"/.exec(html)![1]!;
  const headers = { 'x-wbplay-review': token, origin: server.url.replace(/\/$/, '') };
  const indexText = await (await fetch(`${server.url}api/cases`, { headers })).text();
  const index = JSON.parse(indexText) as { cases: Array<{ name: string; fields: Record<string, string> }> };
  assert.equal(index.cases.length, 5);
  index.cases.forEach((c, i) => {
    const shown = report.cases[i]!;
    assert.equal(c.name, shown.name);
    assert.deepEqual(Object.keys(c.fields), Object.keys(shown.study ?? {}), 'the fields of the report, no more');
  });
  assert.doesNotMatch(indexText, PATIENT);
  const detail = await (await fetch(`${server.url}api/case?case=0`, { headers })).json();
  const seen = Object.fromEntries(
    (detail as { captures: Array<{ path: string; sha256: string }> }).captures.map((k) => [k.path, k.sha256]),
  );
  const saved = await fetch(`${server.url}api/review`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ case: 0, verdict: 'pass', seen }),
  });
  assert.equal(saved.status, 200, await saved.clone().text());
  const csv = await readFile(join(out, 'review.csv'), 'utf8');
  assert.equal(csv.trim().split('\r\n').length, 6, 'a head and a row per series');
  assert.doesNotMatch(csv, PATIENT);
  assert.doesNotMatch(await readFile(join(out, 'review.json'), 'utf8'), PATIENT);
});
