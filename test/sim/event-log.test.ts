import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EventLog, KEPT_EVENTS, type WorkbenchEvent } from '../../src/sim/event-log.js';

const dir = await mkdtemp(join(tmpdir(), 'wbplay-event-log-'));
after(() => rm(dir, { recursive: true, force: true }));

const event = (i: number): WorkbenchEvent => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  method: 'GET',
  path: `/api/v1/nodes/n${i}`,
  status: 200,
  ms: 1,
});

test('the log keeps the latest requests, oldest first, and drops the older ones', () => {
  const log = new EventLog(undefined, 5);
  for (let i = 0; i < 3; i++) log.record(event(i));
  assert.deepEqual(
    log.entries.map((e) => e.path),
    ['/api/v1/nodes/n0', '/api/v1/nodes/n1', '/api/v1/nodes/n2'],
  );
  for (let i = 3; i < 23; i++) {
    log.record(event(i));
    assert.equal(log.entries.length, Math.min(5, i + 1));
    assert.equal(log.entries.at(-1)!.path, `/api/v1/nodes/n${i}`);
  }
  assert.deepEqual(
    log.entries.map((e) => e.path),
    [18, 19, 20, 21, 22].map((i) => `/api/v1/nodes/n${i}`),
  );
});

test('a workbench log keeps the last KEPT_EVENTS requests', () => {
  const log = new EventLog();
  const total = KEPT_EVENTS * 3 + 7;
  for (let i = 0; i < total; i++) log.record(event(i));
  assert.equal(log.entries.length, KEPT_EVENTS);
  assert.equal(log.entries[0]!.path, `/api/v1/nodes/n${total - KEPT_EVENTS}`);
  assert.equal(log.entries.at(-1)!.path, `/api/v1/nodes/n${total - 1}`);
});

test('subscribers and the file see every request, however many the log keeps', async () => {
  const file = join(dir, 'events.jsonl');
  const log = new EventLog(file, 4);
  const seen: string[] = [];
  log.subscribe((e) => seen.push(e.path));
  for (let i = 0; i < 30; i++) log.record(event(i));
  await log.close();
  const expected = Array.from({ length: 30 }, (_, i) => `/api/v1/nodes/n${i}`);
  assert.deepEqual(seen, expected);
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as WorkbenchEvent).path),
    expected,
  );
  assert.equal(log.entries.length, 4);
});
