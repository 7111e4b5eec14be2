import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { discover, launchWorkbench, WorkbenchLaunchError, WorkbenchUsageError } from '../../src/client/index.js';
import { firstFreePort, preferencesXml } from '../../src/client/launch.js';
import { envelope, ScriptedServer } from '../helpers/scripted-server.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-launch-test-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/**
 * A fake workbench: reads the preferences override it is given, records it, and serves
 * /api/v1/health on the configured port, only with the configured token.
 */
const FAKE = `
const fs = require('node:fs');
const http = require('node:http');
const i = process.argv.indexOf('--MITK.preferences-override');
const file = process.argv[i + 1].slice(1);
const xml = fs.readFileSync(file, 'utf8');
if (process.env.FAKE_RECORD) fs.writeFileSync(process.env.FAKE_RECORD, JSON.stringify({ pid: process.pid, file, xml, extra: process.argv.slice(i + 2) }));
const port = Number(/name="port" value="(\\d+)"/.exec(xml)[1]);
const token = /name="apiToken" value="([^"]*)"/.exec(xml)[1];
if (process.env.FAKE_MODE === 'crash') { process.stderr.write('ERROR: Cannot apply preferences override\\n'); process.exit(3); }
if (process.env.FAKE_MODE === 'silent') { setInterval(() => {}, 1000); return; }
http.createServer((req, res) => {
  const ok = req.headers.authorization === 'Bearer ' + token;
  res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
  res.end(JSON.stringify(ok ? { data: { status: 'healthy' } } : { error: { code: 'UNAUTHORIZED', message: 'Invalid API token' } }));
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

async function fakeExecutable(name: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!${process.execPath}\n${FAKE}`);
  await chmod(path, 0o755);
  return path;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 150 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

test('a launched fake workbench gets the preferences file, is found healthy with its token, and is stopped', async () => {
  const exe = await fakeExecutable('MitkWorkbench');
  const record = join(dir, 'record.json');
  const port = await freePort();
  const wb = await launchWorkbench({
    executable: exe,
    port,
    extraArgs: ['--flag'],
    env: { ...process.env, FAKE_RECORD: record },
  });
  try {
    assert.equal(wb.url, `http://localhost:${port}`);
    assert.match(wb.token, /^[0-9a-f]{32}$/);
    assert.equal(await wb.client.ping(), true);
    assert.equal((await wb.client.health()).status, 'healthy');
    const seen = JSON.parse(await readFile(record, 'utf8')) as { file: string; xml: string; extra: string[] };
    assert.equal(seen.xml, preferencesXml(port, wb.token));
    assert.match(
      seen.xml,
      /name="org.mitk.restapi"[\s\S]*name="enabled" value="true"[\s\S]*name="autoStart" value="true"[\s\S]*name="requireAuth" value="true"/,
    );
    assert.deepEqual(seen.extra, ['--flag']);
    assert.equal(
      existsSync(seen.file),
      false,
      'the preferences file (it holds the token) is deleted once the workbench is up',
    );
    assert.ok(alive(wb.pid));
  } finally {
    await wb.stop();
  }
  assert.equal(alive(wb.pid), false);
});

test("the token is used as given and never shows in the handle's inspect output", async () => {
  const { inspect } = await import('node:util');
  const wb = await launchWorkbench({
    executable: await fakeExecutable('wb2'),
    port: await freePort(),
    token: 'secret-token-value',
  });
  try {
    assert.equal(wb.token, 'secret-token-value');
    assert.ok(!inspect(wb).includes('secret-token-value'));
    assert.ok(!inspect(wb.client).includes('secret-token-value'));
  } finally {
    await wb.stop();
  }
});

test('a workbench that exits with an error fails fast with its exit code, the stderr tail and the preferences hint', async () => {
  const exe = await fakeExecutable('crashing');
  const err = await launchWorkbench({
    executable: exe,
    port: await freePort(),
    timeoutMs: 60_000,
    env: { ...process.env, FAKE_MODE: 'crash' },
  }).catch((e: unknown) => e);
  assert.ok(err instanceof WorkbenchLaunchError);
  assert.equal(err.code, 'EXITED');
  assert.equal(err.exitCode, 3);
  assert.match(err.stderrTail, /Cannot apply preferences/);
  assert.match(err.message, /exited with code 3/);
  assert.match(err.message, /start it once by hand/);
});

test('a workbench that never answers is killed after the timeout', async () => {
  const exe = await fakeExecutable('silent');
  const record = join(dir, 'silent.json');
  const err = await launchWorkbench({
    executable: exe,
    port: await freePort(),
    timeoutMs: 800,
    env: { ...process.env, FAKE_MODE: 'silent', FAKE_RECORD: record },
  }).catch((e: unknown) => e);
  assert.ok(err instanceof WorkbenchLaunchError);
  assert.equal(err.code, 'NOT_READY');
  assert.match(err.message, /within 800 ms/);
  const { pid } = JSON.parse(await readFile(record, 'utf8')) as { pid: number };
  assert.equal(alive(pid), false, 'the silent workbench was killed');
});

test('a wrapper that exits at once with code 0 is reported after the timeout, not left pending', async () => {
  // With nothing else running, the wait between probes is all that keeps this process alive.
  const exe = join(dir, 'wrapper');
  await writeFile(exe, `#!${process.execPath}\nprocess.exit(0);\n`);
  await chmod(exe, 0o755);
  const err = await launchWorkbench({ executable: exe, port: await freePort(), timeoutMs: 800, env: {} }).catch(
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkbenchLaunchError, String(err));
  assert.equal(err.code, 'NOT_READY');
  assert.match(err.message, /exited early with code 0/);
});

test('without an executable or with a missing one the launch fails clearly', async () => {
  await assert.rejects(
    launchWorkbench({ env: {} }),
    (e: unknown) =>
      e instanceof WorkbenchUsageError && e.code === 'NO_EXECUTABLE' && e.message.includes('MITK_WORKBENCH'),
  );
  await assert.rejects(
    launchWorkbench({ executable: join(dir, 'nope'), port: await freePort() }),
    (e: unknown) => e instanceof WorkbenchLaunchError && e.code === 'EXECUTABLE_NOT_FOUND',
  );
  await assert.rejects(launchWorkbench({ env: { MITK_WORKBENCH: join(dir, 'nope-either') }, port: await freePort() }), {
    code: 'EXECUTABLE_NOT_FOUND',
  });
});

test('the first bindable port of a list is chosen', async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const taken = (busy.address() as { port: number }).port;
  const free = await freePort();
  try {
    assert.equal(await firstFreePort([taken, free]), free);
    await assert.rejects(firstFreePort([taken]), { code: 'NO_FREE_PORT' });
  } finally {
    await new Promise<void>((r) => busy.close(() => r()));
  }
});

test('discover finds the answering workbenches among the given ports, sorted by port', async () => {
  const a = await ScriptedServer.start();
  const b = await ScriptedServer.start();
  a.on('GET', '/api/v1/health', envelope({ status: 'healthy' }));
  b.on('GET', '/api/v1/health', envelope({ status: 'healthy' }));
  const closed = await freePort();
  try {
    const found = await discover({ ports: [b.port, closed, a.port] });
    const expected = [a.port, b.port].sort((x, y) => x - y);
    assert.deepEqual(
      found,
      expected.map((port) => ({ url: `http://localhost:${port}`, port })),
    );
    assert.equal(a.only().headers.authorization, undefined);
  } finally {
    await a.close();
    await b.close();
  }
});

test('a launched workbench does not survive its parent being killed outright (SIGKILL) or interrupted (SIGINT)', async () => {
  const exe = await fakeExecutable('orphan-check');
  const launchModule = fileURLToPath(new URL('../../src/client/launch.ts', import.meta.url));
  const parentScript = join(dir, 'parent.mjs');
  await writeFile(
    parentScript,
    `
    const { launchWorkbench } = await import(${JSON.stringify(launchModule)});
    const wb = await launchWorkbench({ executable: ${JSON.stringify(exe)}, port: Number(process.argv[2]) });
    process.stdout.write(String(wb.pid) + '\\n');
    setInterval(() => {}, 1000);
  `,
  );
  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    const parent = spawn(process.execPath, ['--import', 'tsx', parentScript, String(await freePort())], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      parent.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(Number(out.trim()));
      });
      parent.once('exit', (code) => reject(new Error(`parent exited early with ${code}`)));
    });
    assert.ok(alive(pid));
    const exited = new Promise((r) => parent.once('exit', r));
    parent.kill(signal);
    await exited;
    assert.equal(await waitGone(pid), true, `the workbench ${pid} outlived its parent killed by ${signal}`);
  }
});
