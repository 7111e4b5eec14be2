import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderJunit } from '../../src/report/junit.js';
import type { CaseResult, RunResultTree, StepResult } from '../../src/result/result.js';
import { runOf } from '../../src/result/case-list.js';
import { summarize } from '../../src/result/result.js';
import { recordedResult } from './replay.js';
import { parseXml, type XmlElement } from './xml.js';

const INT = /^\d+$/;
const SECONDS = /^\d+(\.\d+)?$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;

function need(el: XmlElement, attr: string, pattern?: RegExp): string {
  const value = el.attrs[attr];
  assert.ok(value !== undefined, `<${el.name}> needs the attribute ${attr}`);
  if (pattern) assert.match(value, pattern, `<${el.name} ${attr}="${value}">`);
  return value;
}

function count(el: XmlElement, attr: string): number {
  return Number(need(el, attr, INT));
}

/**
 * What the usual JUnit XSD (Ant / Jenkins junit-4 shape) requires, checked by hand: element
 * nesting and order, required attributes and their formats, and counts that match the cases.
 */
function checkJunitSchema(root: XmlElement): void {
  assert.equal(root.name, 'testsuites');
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  need(root, 'time', SECONDS);
  for (const suite of root.children) {
    assert.equal(suite.name, 'testsuite');
    need(suite, 'name');
    need(suite, 'time', SECONDS);
    need(suite, 'timestamp', TIMESTAMP);
    const order = suite.children.map((c) => c.name);
    const firstCase = order.indexOf('testcase');
    assert.ok(
      order.every((n) => ['properties', 'testcase', 'system-out', 'system-err'].includes(n)),
      `unexpected child in testsuite: ${order.join(', ')}`,
    );
    if (order.includes('properties')) assert.equal(order.indexOf('properties'), 0, 'properties come first');
    assert.ok(
      order.lastIndexOf('testcase') < (order.indexOf('system-out') === -1 ? Infinity : order.indexOf('system-out')),
    );
    for (const p of suite.children.filter((c) => c.name === 'properties')) {
      for (const prop of p.children) {
        assert.equal(prop.name, 'property');
        need(prop, 'name');
        need(prop, 'value');
      }
    }
    const cases = suite.children.filter((c) => c.name === 'testcase');
    assert.ok(firstCase >= 0 || cases.length === 0);
    const seen = { failures: 0, errors: 0, skipped: 0 };
    for (const tc of cases) {
      need(tc, 'name');
      need(tc, 'classname');
      need(tc, 'time', SECONDS);
      const kinds = tc.children.map((c) => c.name);
      assert.ok(
        kinds.every((n) => ['failure', 'error', 'skipped', 'system-out', 'system-err'].includes(n)),
        `unexpected child in testcase: ${kinds.join(', ')}`,
      );
      const results = tc.children.filter((c) => ['failure', 'error', 'skipped'].includes(c.name));
      assert.ok(results.length <= 1, 'a testcase has at most one result element');
      const result = results[0];
      if (result) {
        assert.equal(kinds.indexOf(result.name), 0, 'the result element comes before system-out');
        if (result.name !== 'skipped') {
          need(result, 'message');
          need(result, 'type');
        }
        if (result.name === 'failure') seen.failures++;
        if (result.name === 'error') seen.errors++;
        if (result.name === 'skipped') seen.skipped++;
      }
    }
    assert.equal(count(suite, 'tests'), cases.length);
    assert.equal(count(suite, 'failures'), seen.failures);
    assert.equal(count(suite, 'errors'), seen.errors);
    assert.equal(count(suite, 'skipped'), seen.skipped);
    totals.tests += cases.length;
    totals.failures += seen.failures;
    totals.errors += seen.errors;
    totals.skipped += seen.skipped;
  }
  assert.equal(count(root, 'tests'), totals.tests);
  assert.equal(count(root, 'failures'), totals.failures);
  assert.equal(count(root, 'errors'), totals.errors);
  assert.equal(count(root, 'skipped'), totals.skipped);
}

function testcases(root: XmlElement): XmlElement[] {
  return root.children.flatMap((s) => s.children.filter((c) => c.name === 'testcase'));
}

test('the recorded run gives schema-valid JUnit with one testcase per case', async () => {
  const result = recordedResult();
  const root = parseXml(await renderJunit(runOf(result)));
  checkJunitSchema(root);
  assert.equal(root.children.length, 1);
  assert.equal(root.children[0]?.attrs.name, 'playbooks/regression.yaml');
  const cases = testcases(root);
  assert.deepEqual(
    cases.map((c) => [c.attrs.name, c.attrs.classname, c.attrs.time, c.children[0]?.name]),
    result.cases.map((c) => [
      c.name,
      c.playbook,
      (c.durationMs / 1000).toFixed(3),
      { passed: 'system-out', failed: 'failure', error: 'error', skipped: 'skipped' }[c.status],
    ]),
  );
  const failure = cases[1]?.children[0];
  assert.equal(failure?.attrs.type, 'IMAGE_DIFFERENT');
  assert.match(failure?.text ?? '', /diff: cases\/study-02\/axial-diff\.png/);
  assert.match(failure?.text ?? '', /playbooks\/regression\.yaml:14:5/);
  const error = cases[2]?.children[0];
  assert.equal(error?.attrs.type, 'SERVICE_UNAVAILABLE');
  assert.match(error?.text ?? '', /hint: raise --retries/);
  assert.equal(cases[4]?.children[0]?.attrs.message, 'up to date (inputs and outputs unchanged)');
  const out = cases[0]?.children.find((c) => c.name === 'system-out')?.text ?? '';
  assert.equal(out.split('\n').length, 5, 'one line per step');
});

function step(over: Partial<StepResult>): StepResult {
  return {
    index: 1,
    kind: 'set',
    description: 'opacity',
    span: { file: 'p.yaml', line: 3, col: 5 },
    status: 'passed',
    durationMs: 4,
    attempts: [],
    args: {},
    artefacts: [],
    notices: [],
    ...over,
  };
}

function run(cases: CaseResult[]): RunResultTree {
  return {
    version: 1,
    startedAt: '2025-01-02T03:04:05.678Z',
    durationMs: 1234,
    status: 'failed',
    provenance: { playbooks: [], wbplay: '0.1.0' },
    cases,
    summary: summarize(cases),
  };
}

test('names and messages from playbooks and servers are escaped, control characters included', async () => {
  const nasty = 'a <img src=x onerror=alert(1)> & "b" \'c\' ]]> \u0001\u001b[31m \ud800 end';
  const message = `line one\nline two\twith tab\r\nand CR ${nasty}`;
  const result = run([
    {
      id: 'x',
      name: nasty,
      playbook: 'p<&>.yaml',
      status: 'error',
      durationMs: 5,
      steps: [step({ status: 'error', description: nasty, error: { code: 'E<1>', message } })],
    },
  ]);
  const xml = await renderJunit(runOf(result));
  const root = parseXml(xml);
  checkJunitSchema(root);
  const tc = testcases(root)[0];
  const shown = nasty.replace('\u0001', '\\u0001').replace('\u001b', '\\u001b').replace('\ud800', '\\ud800');
  assert.equal(tc?.attrs.name, shown);
  assert.equal(tc?.attrs.classname, 'p<&>.yaml');
  const error = tc?.children[0];
  assert.equal(error?.attrs.type, 'E<1>');
  assert.equal(
    error?.attrs.message,
    `E<1>: ${message.replace('\u0001', '\\u0001').replace('\u001b', '\\u001b').replace('\ud800', '\\ud800')}`,
    'line breaks, tabs and CR survive in the attribute',
  );
  assert.ok(!xml.includes('<img'), 'no markup from the data reaches the file');
});

test('one testsuite per playbook, in the order the run met them, with its own counts', async () => {
  const passed = (id: string, playbook: string): CaseResult => ({
    id,
    name: id,
    playbook,
    status: 'passed',
    durationMs: 1500,
    steps: [step({})],
  });
  const failed = (id: string, playbook: string): CaseResult => ({
    id,
    name: id,
    playbook,
    status: 'failed',
    durationMs: 250,
    steps: [step({ status: 'failed', error: { code: 'STATE_MISMATCH', message: 'opacity is 0.5, expected 0.8' } })],
  });
  const root = parseXml(
    await renderJunit(runOf(run([passed('a', 'b.yaml'), failed('b', 'a.yaml'), passed('c', 'b.yaml')]))),
  );
  checkJunitSchema(root);
  assert.deepEqual(
    root.children.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.time]),
    [
      ['b.yaml', '2', '0', '3.000'],
      ['a.yaml', '1', '1', '0.250'],
    ],
  );
  assert.equal(root.attrs.time, '1.234');
  assert.equal(root.children[0]?.attrs.timestamp, '2025-01-02T03:04:05');
});

test('the schema check itself rejects broken JUnit', async () => {
  const good = await renderJunit(runOf(recordedResult()));
  assert.throws(() => checkJunitSchema(parseXml(good.replace('tests="5" failures="1"', 'tests="4" failures="1"'))));
  assert.throws(() => checkJunitSchema(parseXml(good.replace(' type="IMAGE_DIFFERENT"', ''))));
  assert.throws(() => parseXml(good.replace('regression · study-01', 'a < b')));
  assert.throws(() => parseXml(good.replace('regression · study-01', 'a \u0002 b')));
});
