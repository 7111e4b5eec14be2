// A failed image check's hint fits where it is read: the terminal points to the report served
// with its Accept buttons and to `wbplay accept`; the HTML report to its Accept button (served)
// or to the commands that give it one (a file). Other hints are the step's own.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createReporters } from '../../src/report/factory.js';
import { renderHtml } from '../../src/report/html.js';
import { ReportNames } from '../../src/report/names.js';
import { casesInMemory } from '../../src/result/case-list.js';
import type { CaseInfo, CaseResult, RunResult, StepResult } from '../../src/result/result.js';

const root = join('/', 'projects', 'lung');
const outputDir = join(root, 'my out');

const mismatch: StepResult = {
  index: 1,
  kind: 'expect_image',
  description: 'compare stdmulti/axial with axial.png',
  span: { file: join(root, 'playbooks', 'a.yaml'), line: 4, col: 5 },
  status: 'failed',
  durationMs: 5,
  attempts: [],
  args: {},
  artefacts: [
    { kind: 'actual', path: 'artefacts/A/main/axial-actual.png' },
    { kind: 'diff', path: 'artefacts/A/main/axial-diff.png' },
  ],
  image: { golden: join(root, 'goldens', 'axial.png'), outcome: 'different', message: '12 pixels differ' },
  error: { code: 'IMAGE_MISMATCH', message: 'stdmulti/axial differs', hint: 'the step’s own hint' },
  notices: [],
};
const refused: StepResult = {
  ...mismatch,
  index: 2,
  kind: 'load',
  artefacts: [],
  error: { code: 'NODE_NOT_FOUND', message: 'no such node', hint: 'load it first' },
};
const info: CaseInfo = {
  id: 'main',
  name: 'A',
  playbook: join(root, 'playbooks', 'a.yaml'),
  steps: [mismatch, refused],
};
const done: CaseResult = { ...info, status: 'failed', durationMs: 10, steps: [mismatch, refused] };
const result: RunResult = {
  version: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 10,
  status: 'failed',
  provenance: { playbooks: [{ path: info.playbook, sha256: 'ab' }], wbplay: '0' },
  summary: { total: 1, passed: 0, failed: 1, error: 0, skipped: 0 },
  cases: casesInMemory([done]),
};

async function terminal(name: 'line' | 'tasklist'): Promise<string> {
  let text = '';
  const stream = { isTTY: false, write: (chunk: string) => ((text += chunk), true) };
  const fanout = createReporters([name], { outputDir, stream, isTTY: false, env: {}, root });
  await fanout.onRunStart({ startedAt: result.startedAt, cases: [info], workbench: 'embedded', workers: 1, outputDir });
  fanout.onCaseStart(info, 1);
  for (const step of done.steps) fanout.onStepEnd(info, step);
  fanout.onCaseEnd(done);
  await fanout.onRunEnd(result);
  assert.deepEqual(fanout.failures, []);
  return text;
}

test('on a terminal, a failed image check points to wbplay show-report and wbplay accept', async () => {
  // The output folder as a command typed in the working folder names it, quoted for the shell.
  const dir = JSON.stringify(new ReportNames(root, outputDir).outputArg);
  const hint = `see expected, actual and diff side by side: wbplay show-report ${dir}; if the change is intended, accept it there or with wbplay accept ${dir}`;
  const line = await terminal('line');
  assert.ok(line.includes(`hint: ${hint}`), line);
  assert.ok(line.includes('diff: my out/artefacts/A/main/axial-diff.png'), line);
  assert.ok(!line.includes('the step’s own hint'));
  assert.ok(line.includes('hint: load it first'), 'other hints are the step’s own');
  const tasklist = await terminal('tasklist');
  assert.ok(tasklist.includes(`hint: ${hint}`), tasklist);
});

test('in the HTML report it points to the Accept button and wbplay accept', async () => {
  const names = new ReportNames(root, outputDir);
  const file = await renderHtml(result, { outputDir, names });
  assert.ok(
    file.includes(
      'Hint: If the change is intended, run wbplay accept &quot;my out&quot;, or open this report with wbplay show-report &quot;my out&quot; and press Accept as golden.',
    ),
  );
  const served = await renderHtml(result, { outputDir, names, review: { token: 't', checks: new Set(['0.1']) } });
  assert.ok(
    served.includes(
      'Hint: If the change is intended, press Accept as golden below, or run wbplay accept &quot;my out&quot;.',
    ),
  );
  assert.ok(served.includes('>Accept as golden</button>'));
  for (const page of [file, served]) {
    assert.ok(!page.includes('open the HTML report'));
    assert.ok(page.includes('Hint: load it first'));
  }
});
