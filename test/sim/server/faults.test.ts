import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { request } from 'node:http';
import { FaultInjector, FaultSpecError, parseFaults, type FaultSpec } from '../../../src/sim/faults.js';
import { WorkbenchConfigError } from '../../../src/sim/config.js';
import { createWorkbench } from '../../../src/sim/workbench.js';
import { withTempDir, withWorkbench } from '../../helpers/workbench.js';

test('the fault spec string: every kind, triggers by rate, by n-th request of a route, with method and pattern', () => {
  const spec = parseFaults(
    'seed=7; 503@POST /api/v1/datastorage/nodes#2; drop-after@rate=0.1; latency=20..50; 429=3@GET /api/v1/datastorage/** rate=0.5; stall@#4; drop-before@* /api/v1/info; latency=5@GET',
  );
  assert.deepEqual(spec, {
    seed: 7,
    rules: [
      { kind: '503', method: 'POST', path: '/api/v1/datastorage/nodes', nth: 2 },
      { kind: 'drop-after', rate: 0.1 },
      { kind: 'latency', latencyMs: [20, 50] },
      { kind: '429', retryAfter: 3, method: 'GET', path: '/api/v1/datastorage/**', rate: 0.5 },
      { kind: 'stall', nth: 4 },
      { kind: 'drop-before', path: '/api/v1/info' },
      { kind: 'latency', latencyMs: [5, 5], method: 'GET' },
    ],
  });
  for (const [bad, hint] of [
    ['boom@rate=1', /unknown kind 'boom'/],
    ['latency', /latency needs a delay/],
    ['503@rate=2', /rate must be from 0 to 1/],
    ['503@rate=x', /rate must be a number/],
    ['503@/a#0', /#N counts from 1/],
    ['503@/a#2 rate=0.5', /either #N or rate=R/],
    ['stall=3', /takes no '=' value/],
    ['503@', /nothing after '@'/],
    ['503@lower', /'lower' is not a method/],
  ] as const) {
    assert.throws(
      () => parseFaults(bad),
      (e: unknown) => e instanceof FaultSpecError && hint.test(e.message) && e.message.includes(bad),
      bad,
    );
  }
});

test('the injector: n-th request of a route, path patterns, the same seed gives the same faults', () => {
  const inj = new FaultInjector(parseFaults('503@POST /api/v1/datastorage/nodes/*/children#2'));
  const seen = [1, 2, 3].map(() => inj.decide('POST', '/api/v1/datastorage/nodes/n1/children').kind);
  assert.deepEqual(seen, [undefined, '503', undefined]);
  assert.equal(
    inj.decide('POST', '/api/v1/datastorage/nodes/n1/x/children').kind,
    undefined,
    '* stays within one segment',
  );
  assert.equal(
    inj.decide('GET', '/api/v1/datastorage/nodes/n1/children').kind,
    undefined,
    'other methods do not count',
  );

  const spec: FaultSpec = parseFaults('seed=42;drop-after@rate=0.3;latency=10..90@rate=0.5');
  const run = (s: FaultSpec) => {
    const i = new FaultInjector(s);
    return Array.from({ length: 60 }, () => i.decide('GET', '/api/v1/info'));
  };
  const a = run(spec);
  assert.deepEqual(run(spec), a, 'repeatable');
  const drops = a.filter((d) => d.kind === 'drop-after').length;
  assert.ok(drops > 5 && drops < 35, `about 30% of 60 dropped, got ${drops}`);
  assert.ok(
    a.some((d) => d.latencyMs === 0) && a.every((d) => d.latencyMs === 0 || (d.latencyMs >= 10 && d.latencyMs <= 90)),
  );
  assert.notDeepEqual(run({ ...spec, seed: 43 }), a, 'another seed, other faults');
});

test('bad faults in the options are a WorkbenchConfigError naming the option', async () => {
  await assert.rejects(
    createWorkbench({ faults: 'nonsense' }),
    (e: unknown) => e instanceof WorkbenchConfigError && e.message.startsWith('faults:'),
  );
  await assert.rejects(createWorkbench({ faults: { rules: [{ kind: '503', rate: 5 }] } }), WorkbenchConfigError);
});

/** A raw request that resolves with the status, or with the socket error code. */
function probe(
  url: string,
  method: string,
  path: string,
  timeoutMs?: number,
): Promise<{ status?: number; error?: string }> {
  return new Promise((resolve) => {
    const r = request(`${url}${path}`, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode }));
    });
    r.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    if (timeoutMs !== undefined) {
      r.setTimeout(timeoutMs, () => {
        resolve({ error: 'TIMEOUT' });
        r.destroy();
      });
    }
    r.end(method === 'POST' ? '{"name":"n"}' : undefined);
  });
}

test('over HTTP: 503, 429 with Retry-After, drop before (not applied), drop after (applied), stall, latency', async () => {
  const faults = [
    '503@GET /api/v1/health#1',
    '429=4@GET /api/v1/health#2',
    'drop-before@POST /api/v1/datastorage/nodes#1',
    'drop-after@POST /api/v1/datastorage/nodes#2',
    'stall@GET /api/v1/info#1',
    'latency=30@GET /api/v1/config/file-access',
  ].join(';');
  await withWorkbench({ faults }, async (wb) => {
    const unavailable = await wb.call('GET', '/health');
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable.json.error.code, 'SERVICE_UNAVAILABLE');
    const limited = await wb.call('GET', '/health');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '4');
    assert.equal(limited.json.error.retry_after, 4);
    assert.equal((await wb.call('GET', '/health')).status, 200, 'each rule fires on its n-th request only');

    const before = await probe(wb.url, 'POST', '/api/v1/datastorage/nodes');
    assert.ok(before.error !== undefined && before.status === undefined, 'the connection was dropped');
    assert.equal(
      (await wb.call('GET', '/datastorage/nodes')).json.meta.total_count,
      0,
      'drop-before did not apply the request',
    );
    const after = await probe(wb.url, 'POST', '/api/v1/datastorage/nodes');
    assert.ok(after.error !== undefined);
    assert.equal(
      (await wb.call('GET', '/datastorage/nodes')).json.meta.total_count,
      1,
      'drop-after applied the request',
    );

    const stalled = await probe(wb.url, 'GET', '/api/v1/info', 300);
    assert.deepEqual(stalled, { error: 'TIMEOUT' }, 'no answer at all');
    assert.equal((await wb.call('GET', '/info')).status, 200, 'the next request is answered');

    assert.equal((await wb.call('GET', '/config/file-access')).status, 200);
    const slow = wb.events.entries.find((e) => e.path === '/api/v1/config/file-access');
    assert.equal(slow?.latency_ms, 30);

    const faulted = wb.events.entries
      .filter((e) => e.fault !== undefined)
      .map((e) => [e.method, e.path, e.status, e.fault]);
    assert.deepEqual(faulted, [
      ['GET', '/api/v1/health', 503, '503'],
      ['GET', '/api/v1/health', 429, '429'],
      ['POST', '/api/v1/datastorage/nodes', null, 'drop-before'],
      ['POST', '/api/v1/datastorage/nodes', null, 'drop-after'],
      ['GET', '/api/v1/info', null, 'stall'],
    ]);
  });
});

test('faults given as an object in the API work like the string', async () => {
  await withWorkbench(
    { faults: { seed: 3, rules: [{ kind: '503', method: 'GET', path: '/api/v1/info', nth: 1 }] } },
    async (wb) => {
      assert.equal((await wb.call('GET', '/info')).status, 503);
      assert.equal((await wb.call('GET', '/info')).status, 200);
    },
  );
});

test('the event log file: one JSON line per request, never headers, tokens or query strings', async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, 'events.jsonl');
    await withWorkbench({ events: file, token: 'very-secret-token' }, async (wb) => {
      await wb.call('GET', '/health', { headers: { authorization: 'Bearer very-secret-token' } });
      await wb.call('GET', '/datastorage/nodes?filter.name=x', {
        headers: { authorization: 'Bearer very-secret-token' },
      });
      await wb.call('GET', '/datastorage/nodes', { headers: { authorization: 'Bearer wrong' } });
      await wb.call('GET', '/missing', { headers: { authorization: 'Bearer very-secret-token' } });
    });
    const text = await readFile(file, 'utf8');
    assert.ok(!text.includes('secret') && !text.includes('Bearer') && !text.includes('filter.name'));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.method, l.path, l.status]),
      [
        ['GET', '/api/v1/health', 200],
        ['GET', '/api/v1/datastorage/nodes', 200],
        ['GET', '/api/v1/datastorage/nodes', 401],
        ['GET', '/api/v1/missing', 404],
      ],
    );
    for (const l of lines) {
      assert.deepEqual(Object.keys(l).sort(), ['method', 'ms', 'path', 'status', 'time']);
      assert.ok(!Number.isNaN(Date.parse(l.time)) && l.time.endsWith('Z'));
      assert.ok(typeof l.ms === 'number' && l.ms >= 0);
    }
    // A second server appends to the same file.
    await withWorkbench({ events: file }, async (wb) => {
      await wb.call('GET', '/info');
    });
    assert.equal((await readFile(file, 'utf8')).trimEnd().split('\n').length, 5);
  });
});
