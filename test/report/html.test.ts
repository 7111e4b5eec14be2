import { test } from 'node:test';
import assert from 'node:assert/strict';
import { artefactUrl, esc, jsonForScript } from '../../src/report/html-escape.js';
import { renderHtml } from '../../src/report/html.js';
import type { RunResult, StepResult } from '../../src/result/result.js';
import { casesInMemory } from '../../src/result/case-list.js';
import { summarize } from '../../src/result/result.js';

function run(step: Partial<StepResult>): RunResult {
  const s: StepResult = {
    index: 1,
    kind: 'expect_image',
    description: 'compare',
    span: { file: 'p.yaml', line: 2, col: 3 },
    status: 'passed',
    durationMs: 5,
    attempts: [],
    args: {},
    artefacts: [],
    notices: [],
    ...step,
  };
  const cases = [{ id: 'a', name: 'a', playbook: 'p.yaml', status: s.status, durationMs: 5, steps: [s] }];
  return {
    version: 1,
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: 5,
    status: s.status,
    provenance: { playbooks: [], wbplay: '0.1.0' },
    cases: casesInMemory(cases),
    summary: summarize(cases),
  };
}

test('artefact paths become URLs relative to the report, each segment encoded', () => {
  assert.equal(artefactUrl('shots/study 1/axial#2?.png', '/out'), 'shots/study%201/axial%232%3F.png');
  assert.equal(artefactUrl('../goldens/a.png', '/out'), '../goldens/a.png');
  assert.equal(artefactUrl('/out/shots/a.png', '/out'), 'shots/a.png');
  assert.equal(artefactUrl('/data/figs/a b.png', '/out'), 'file:///data/figs/a%20b.png');
});

test('escaping covers text, attributes and JSON inside a script element', () => {
  assert.equal(esc(`<a href="x" onclick='y'>&</a>`), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  const json = jsonForScript({ s: '</script><!-- & \u2028' });
  assert.ok(!/[<>&\u2028]/.test(json), json);
  assert.deepEqual(JSON.parse(json), { s: '</script><!-- & \u2028' });
});

test('a golden written by the run is shown as an image; a passed comparison shows its numbers', async () => {
  const written = await renderHtml(
    run({
      image: { golden: 'g/a.png', outcome: 'written', message: 'golden written' },
      artefacts: [{ kind: 'golden', path: 'g/a.png' }],
    }),
  );
  assert.ok(written.includes('<figure class="shot" data-path="g/a.png">'), 'the written golden is shown');
  assert.ok(!written.includes('class="compare"'), 'no comparison viewer without expected and actual');
  const passed = await renderHtml(
    run({
      image: {
        golden: 'g/a.png',
        outcome: 'within-tolerance',
        diffPixels: 3,
        totalPixels: 100,
        diffRatio: 0.03,
        tolerance: { threshold: 0.1, maxDiffPixels: 5 },
        message: 'ok',
      },
    }),
  );
  assert.ok(
    passed.includes(
      '<div class="numbers">within-tolerance · 3 of 100 pixels differ (3%); tolerance threshold 0.1, max 5 px</div>',
    ),
    'the measured numbers are shown',
  );
});

test('a run without cases still gives a page', async () => {
  const r = run({});
  const html = await renderHtml({ ...r, cases: casesInMemory([]), summary: summarize([]), status: 'passed' });
  assert.ok(html.includes('<p class="empty">No cases ran.</p>'));
});
