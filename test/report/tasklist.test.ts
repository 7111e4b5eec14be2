import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CohortProgress } from '../../src/report/progress.js';
import { TaskListReporter } from '../../src/report/tasklist.js';
import type { CaseResult } from '../../src/result/result.js';
import { loadEvents, replay } from './replay.js';

const events = loadEvents();
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/;
const SGR_ALL = new RegExp(SGR.source, 'g');

/** A terminal as far as the reporter can tell: it says it is a TTY and has a size. */
function fakeTerminal(isTTY = true): {
  stream: { isTTY: boolean; columns: number; rows: number; write(chunk: string): boolean };
  text: () => string;
} {
  let text = '';
  return {
    stream: { isTTY, columns: 120, rows: 40, write: (chunk: string) => ((text += chunk), true) },
    text: () => text,
  };
}

/** What is on the screen at the end: the last frame log-update drew, then what came after it. */
function lastFrame(text: string): string {
  const frames = text.split('\u001b[G');
  // eslint-disable-next-line no-control-regex
  return (frames[frames.length - 1] ?? '').replace(/\u001b\[\?25[hl]/g, '');
}

test('on a terminal, cases and their steps are drawn live and the summary follows', async () => {
  const term = fakeTerminal();
  await replay(new TaskListReporter({ stream: term.stream, color: false }), events, '/out');
  const screen = lastFrame(term.text());
  assert.ok(term.text().includes('\u001b[2K'), 'the list is redrawn in place');
  assert.ok(!SGR.test(term.text()), 'no colour codes without colour');
  assert.match(screen, /^✔ regression · study-01 passed · 226 ms$/m);
  assert.match(screen, /^✖ regression · study-02 failed · 217 ms$/m);
  // A failing case keeps its steps on screen, with the one that failed marked.
  assert.match(screen, /^ {2}✔ step 3 screenshot stdmulti\/axial to shots\/study-02\/axial\.png · 45 ms$/m);
  assert.match(screen, /^ {2}✖ step 4 expect_image /m);
  // listr2 cuts long lines at the width of the process's terminal (80 columns in a pipe).
  assert.match(screen, /^ {2}↓ step 5 screenshot stdmulti\/3d to shots\/study-02\/3d\.png · step 4 \(expect_i/m);
  assert.match(screen, /^ {2}✖ step 1 load data\/study-03\.nrrd as ct · error: SERVICE_UNAVAILABLE/m);
  assert.match(screen, /^notice: golden goldens\/sagittal\.png was missing/m);
  assert.match(
    screen,
    /^Failures:\n {2}regression · study-02: 1 failed step\n {4}step 4 expect_image: IMAGE_DIFFERENT.*\(playbooks\/regression\.yaml:14:5\)$/m,
  );
  // Every case that needs attention is named, each with its own steps under it.
  assert.match(screen, /^ {2}regression · study-03: 1 step in error\n {4}step 1 load: SERVICE_UNAVAILABLE/m);
  assert.match(screen, /FAILED 5 cases: 2 passed, 1 failed, 1 error, 1 skipped in 1\.5 s\n$/);
});

test('colour follows the option, not listr2', async () => {
  const term = fakeTerminal();
  await replay(new TaskListReporter({ stream: term.stream, color: true }), events, '/out');
  assert.ok(SGR.test(term.text()));
  assert.match(term.text().replace(SGR_ALL, ''), /FAILED 5 cases/);
});

test("without a terminal, listr2's line renderer reports each event, naming the case", async () => {
  const term = fakeTerminal(false);
  await replay(new TaskListReporter({ stream: term.stream, color: false }), events, '/out');
  const text = term.text();
  assert.ok(!text.includes('\u001b['), 'nothing is redrawn');
  assert.match(text, /^✔ regression · study-01 › step 1 load data\/study-01\.nrrd as ct · 120 ms$/m);
  assert.match(
    text,
    /^✖ regression · study-02 › step 4 expect_image .* \[FAILED: failed: IMAGE_DIFFERENT: 1234 pixels differ/m,
  );
  assert.match(
    text,
    /^↓ regression · study-03 › step 2 set opacity of ct to 0\.8 \[SKIPPED: step 1 \(load, line 9\) could not run\]$/m,
  );
  assert.match(text, /FAILED 5 cases: 2 passed, 1 failed, 1 error, 1 skipped in 1\.5 s\n$/);
});

test('a cohort shows overall progress, failures and one row per worker', async () => {
  const term = fakeTerminal();
  let now = 1_000_000;
  const reporter = new TaskListReporter({ stream: term.stream, color: false, maxCaseRows: 3, now: () => now });
  // Each finished case moves the clock on by a minute, so the rate is exact.
  await replay(
    {
      ...Object.fromEntries(
        (
          [
            'onRunStart',
            'onCaseStart',
            'onStepStart',
            'onStepRetry',
            'onStepEnd',
            'onCaseEnd',
            'onNotice',
            'onRunEnd',
          ] as const
        ).map((name) => [
          name,
          (...args: unknown[]) => {
            const result = (reporter[name] as (...a: unknown[]) => unknown).apply(reporter, args);
            if (name === 'onCaseEnd') now += 60_000;
            return result;
          },
        ]),
      ),
    },
    events,
    '/out',
  );
  const screen = lastFrame(term.text());
  // Four cases ran (one was up to date) in five minutes.
  assert.match(screen, /^✔ 5\/5 done · 1 failed · 1 error · 1 skipped · 0\.8\/min · took 5 m 00 s$/m);
  assert.match(screen, /✖ regression · study-02 › step 4 expect_image/);
  assert.match(screen, /✖ regression · study-03 › step 1 load/);
  assert.match(screen, /^✔ worker 1 · 3 cases done$/m);
  assert.match(screen, /^✔ worker 2 · 2 cases done$/m);
  assert.doesNotMatch(screen, /step 1 load data\/study-01/, 'no row per case or step in a cohort');
  assert.match(screen, /FAILED 5 cases/);
});

test('cases the runner never started (fail-fast, Ctrl-C) end the display instead of hanging it', async () => {
  const term = fakeTerminal();
  const reporter = new TaskListReporter({ stream: term.stream, color: false });
  const upToFirstCase = events.slice(0, events.findIndex((e) => e.event === 'onCaseEnd') + 1);
  const end = events[events.length - 1];
  assert.ok(end);
  await replay(reporter, [...upToFirstCase, end], '/out');
  const screen = lastFrame(term.text());
  assert.match(screen, /^↓ regression · study-04 · not run$/m);
  assert.match(screen, /FAILED 5 cases/);
});

test('progress: rate counts cases that ran, the ETA follows from it', () => {
  const start = 0;
  const p = new CohortProgress(10, start);
  const done = (id: string, status: CaseResult['status']): CaseResult => ({
    id,
    name: id,
    playbook: 'p',
    status,
    durationMs: 1,
    steps: [],
  });
  assert.equal(p.ratePerMinute(30_000), undefined);
  assert.match(p.describe(30_000), /0\/10 done · 0 failed · 0 errors · ETA …$/);
  p.finish(done('a', 'skipped'));
  assert.equal(p.ratePerMinute(30_000), undefined, 'an up-to-date case says nothing about speed');
  p.finish(done('b', 'passed'));
  p.finish(done('c', 'failed'));
  assert.equal(p.ratePerMinute(60_000), 2);
  assert.equal(p.etaMs(60_000), (7 / 2) * 60_000);
  p.finish(done('c', 'passed'));
  assert.equal(p.done, 3, 'a case finished twice counts once');
  assert.equal(p.count('failed'), 0, 'with its last result');
  assert.equal(p.describe(60_000), '3/10 done · 0 failed · 0 errors · 1 skipped · 2.0/min · ETA 3 m 30 s');
});
