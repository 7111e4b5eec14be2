import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReporterFanout } from '../../src/report/fan-out.js';
import type { Reporter } from '../../src/result/reporter.js';
import { loadEvents, recordedRun, replay } from './replay.js';

const events = loadEvents();
const eventCount = events.length;

/** Records every event it receives, by name. */
class Recorder implements Reporter {
  readonly seen: string[] = [];
  constructor(readonly name: string) {}
  onRunStart(): void {
    this.seen.push('onRunStart');
  }
  onCaseStart(): void {
    this.seen.push('onCaseStart');
  }
  onStepStart(): void {
    this.seen.push('onStepStart');
  }
  onStepRetry(): void {
    this.seen.push('onStepRetry');
  }
  onStepEnd(): void {
    this.seen.push('onStepEnd');
  }
  onCaseEnd(): void {
    this.seen.push('onCaseEnd');
  }
  onNotice(): void {
    this.seen.push('onNotice');
  }
  onRunEnd(): void {
    this.seen.push('onRunEnd');
  }
}

test('every reporter gets every event, in order', async () => {
  const a = new Recorder('a');
  const b = new Recorder('b');
  const fanout = new ReporterFanout([a, b]);
  await replay(fanout, events, '/out');
  assert.deepEqual(
    a.seen,
    events.map((e) => e.event),
  );
  assert.deepEqual(b.seen, a.seen);
  assert.deepEqual(fanout.failures, []);
});

test('a reporter that throws is switched off and recorded; the others go on', async () => {
  const good = new Recorder('good');
  let calls = 0;
  const crashing: Reporter = {
    name: 'crashing',
    onStepEnd() {
      calls++;
      throw new Error('boom in onStepEnd');
    },
    onRunEnd() {
      calls++;
    },
  };
  const fanout = new ReporterFanout([crashing, good]);
  await replay(fanout, events, '/out');
  assert.equal(calls, 1, 'no events after the first throw');
  assert.equal(good.seen.length, eventCount);
  assert.deepEqual(fanout.failures, [{ reporter: 'crashing', event: 'onStepEnd', message: 'boom in onStepEnd' }]);
  assert.deepEqual(fanout.active, ['good']);
});

test('a rejected promise disables its reporter without failing the run, and async events are awaited', async () => {
  const order: string[] = [];
  const slowStart: Reporter = {
    name: 'slow',
    async onRunStart() {
      await new Promise((r) => setTimeout(r, 20));
      order.push('slow started');
    },
    async onRunEnd() {
      await new Promise((r) => setTimeout(r, 20));
      order.push('slow ended');
    },
  };
  const rejecting: Reporter = {
    name: 'html',
    async onRunEnd() {
      throw new Error('disk full');
    },
  };
  // A sync event whose implementation returns a promise anyway: its rejection is caught too.
  const sneaky = {
    name: 'sneaky',
    onCaseEnd: () => Promise.reject(new Error('late failure')),
  } as unknown as Reporter;
  const fanout = new ReporterFanout([slowStart, rejecting, sneaky]);
  const start = events[0];
  assert.ok(start);
  await fanout.onRunStart(start.args[0] as Parameters<NonNullable<Reporter['onRunStart']>>[0]);
  order.push('after onRunStart');
  await replay(fanout, events.slice(1), '/out');
  order.push('after onRunEnd');
  assert.deepEqual(order, ['slow started', 'after onRunStart', 'slow ended', 'after onRunEnd']);
  assert.deepEqual(
    fanout.failures.map((f) => [f.reporter, f.event, f.message]),
    [
      ['sneaky', 'onCaseEnd', 'late failure'],
      ['html', 'onRunEnd', 'disk full'],
    ],
  );
});

test('reporters without a name are named after their class, or their position', async () => {
  class Noisy implements Reporter {
    onNotice(): void {
      throw new Error('no');
    }
  }
  const plain: Reporter = {
    onNotice() {
      throw 'a string';
    },
  };
  const fanout = new ReporterFanout([new Noisy(), plain]);
  fanout.onNotice('hello');
  await fanout.onRunEnd(recordedRun(events));
  assert.deepEqual(fanout.failures, [
    { reporter: 'Noisy', event: 'onNotice', message: 'no' },
    { reporter: 'reporter 2', event: 'onNotice', message: 'a string' },
  ]);
});
