import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useColor } from '../../src/report/colors.js';
import { createReporters } from '../../src/report/factory.js';
import { LineReporter } from '../../src/report/line.js';
import { formatDuration, formatPercent, formatSummary, printable } from '../../src/report/report-text.js';
import { loadEvents, replay } from './replay.js';

const events = loadEvents();
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/;

function capture(isTTY: boolean): { stream: { isTTY: boolean; write(chunk: string): boolean }; text: () => string } {
  let text = '';
  return { stream: { isTTY, write: (chunk: string) => ((text += chunk), true) }, text: () => text };
}

test('colour only on a terminal, and never with NO_COLOR or TERM=dumb', () => {
  assert.equal(useColor(true, {}), true);
  assert.equal(useColor(false, {}), false);
  assert.equal(useColor(true, { NO_COLOR: '1' }), false);
  assert.equal(useColor(true, { NO_COLOR: 'yes please' }), false);
  // no-color.org: an empty NO_COLOR does not count.
  assert.equal(useColor(true, { NO_COLOR: '' }), true);
  assert.equal(useColor(true, { TERM: 'dumb' }), false);
});

test('the line reporter chosen for a terminal colours its output, and NO_COLOR turns it off', async () => {
  for (const [env, coloured] of [
    [{}, true],
    [{ NO_COLOR: '1' }, false],
  ] as const) {
    const out = capture(true);
    const fanout = createReporters(['line'], { outputDir: '/unused', stream: out.stream, isTTY: true, env });
    await replay(fanout, events, '/out');
    assert.deepEqual(fanout.failures, []);
    assert.equal(SGR.test(out.text()), coloured, `env ${JSON.stringify(env)}`);
    assert.match(
      out.text().replace(new RegExp(SGR.source, 'g'), ''),
      /FAILED 5 cases: 2 passed, 1 failed, 1 error, 1 skipped in 1\.5 s\n$/,
    );
  }
});

test('a pipe gets plain lines: one per finished step, retry and case, then the summary', async () => {
  const out = capture(false);
  await replay(new LineReporter({ stream: out.stream }), events, '/out');
  const lines = out.text().split('\n');
  assert.ok(!SGR.test(out.text()));
  const stepEnds = events.filter((e) => e.event === 'onStepEnd').length;
  const retries = events.filter((e) => e.event === 'onStepRetry').length;
  assert.equal(lines.filter((l) => / › step \d+ .* … (passed|failed|error|skipped)/.test(l)).length, stepEnds);
  assert.equal(lines.filter((l) => / … attempt \d failed: /.test(l)).length, retries);
  assert.deepEqual(
    lines.filter((l) => /^regression · study-\d+ (passed|failed|error|skipped) in /.test(l)),
    [
      'regression · study-01 passed in 226 ms [1/5]',
      'regression · study-02 failed in 217 ms [2/5]',
      'regression · study-03 error in 653 ms [3/5]',
      'regression · study-04 passed in 412 ms [4/5]',
      'regression · study-05 skipped in 7 ms [5/5]',
    ],
  );
  assert.ok(lines.includes('    at playbooks/regression.yaml:14:5'), 'a failure says where it is');
});

test('a case that runs twice (its workbench died) is counted once', async () => {
  const out = capture(false);
  const reporter = new LineReporter({ stream: out.stream });
  await replay(reporter, events.slice(0, -1), '/out');
  const end = events.find((e) => e.event === 'onCaseEnd');
  reporter.onCaseEnd?.(end?.args[0] as Parameters<NonNullable<LineReporter['onCaseEnd']>>[0]);
  assert.match(out.text(), /regression · study-01 passed in 226 ms \[5\/5\]\n$/);
});

test('text from playbooks cannot move the cursor', () => {
  assert.equal(printable('a\u001b[2Jb\u0007c\td'), 'a\\u001b[2Jb\\u0007c\td');
});

test('durations and percentages read the same everywhere', () => {
  assert.deepEqual(
    [0, 12.4, 999, 1000, 1549, 59_999, 60_000, 61_000, 3_599_000, 3_600_000, 7_380_000].map(formatDuration),
    [
      '0 ms',
      '12 ms',
      '999 ms',
      '1.0 s',
      '1.5 s',
      '59.9 s',
      '1 m 00 s',
      '1 m 01 s',
      '59 m 59 s',
      '1 h 00 m',
      '2 h 03 m',
    ],
  );
  assert.deepEqual([0, 0.00005, 0.0123, 0.3012, 1].map(formatPercent), ['0%', '<0.01%', '1.2%', '30.1%', '100%']);
  assert.equal(formatDuration(-1), '?');
});

test('a case up to date says whose result it is, and the summary counts such cases among the passed', () => {
  const out = capture(false);
  const reporter = new LineReporter({ stream: out.stream });
  reporter.onCaseEnd?.({
    id: 'study-01',
    name: 'cohort · study-01',
    playbook: 'playbooks/cohort.yaml',
    status: 'passed',
    durationMs: 226,
    upToDate: { finishedAt: '2026-01-02T03:04:05.000Z' },
    steps: [],
  });
  assert.equal(out.text(), 'cohort · study-01 passed (up to date: its result is from 2026-01-02T03:04:05.000Z)\n');
  assert.equal(
    formatSummary({ total: 12, passed: 12, failed: 0, error: 0, skipped: 0, upToDate: 8 }),
    '12 cases: 12 passed (8 up to date), 0 failed, 0 errors, 0 skipped',
  );
  assert.equal(
    formatSummary({ total: 2, passed: 2, failed: 0, error: 0, skipped: 0 }),
    '2 cases: 2 passed, 0 failed, 0 errors, 0 skipped',
  );
});
