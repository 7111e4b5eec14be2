import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { withTempDir } from '../../helpers/workbench.js';
import { writeImage } from './volumes.js';

const MAIN = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');

interface Run {
  child: ChildProcess;
  /** Everything printed so far. */
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function wbplay(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

/** Waits for the URL line (or for the process to end first, which fails the test with its output). */
async function urlOf(run: Run): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const m = /listening on (http:\/\/\S+?) /.exec(run.out());
      if (m) resolve(m[1]!);
    };
    run.child.stdout!.on('data', check);
    void run.exited.then((code) =>
      reject(new Error(`wbplay serve exited (${code}) before printing its URL: ${run.err()}`)),
    );
    check();
  });
}

test('wbplay serve: prints its URL (never the token), serves the API with --open files, stops cleanly on SIGTERM', async () => {
  await withTempDir(async (dir) => {
    const image = await writeImage(dir, 'ct.nrrd');
    const events = join(dir, 'events.jsonl');
    const run = wbplay(['serve', '--port', '0', '--open', image, '--events', events, '--inactive', 'mxn'], {
      WBPLAY_TOKEN: 'env-secret-token',
    });
    try {
      const url = await urlOf(run);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(!run.out().includes('env-secret-token'), 'the token is never printed');
      const info = await fetch(`${url}/api/v1/info`);
      assert.equal(info.status, 200);
      assert.equal(
        (await fetch(`${url}/api/v1/datastorage/nodes`)).status,
        401,
        'the token from WBPLAY_TOKEN is required',
      );
      const nodes = await fetch(`${url}/api/v1/datastorage/nodes`, {
        headers: { authorization: 'Bearer env-secret-token' },
      });
      const body = (await nodes.json()) as { data: Array<{ name: string; data_type: string }> };
      assert.deepEqual(
        body.data.map((n) => [n.name, n.data_type]),
        [['ct', 'Image']],
      );
      const pos = await fetch(`${url}/api/v1/rendering/selected-position`, {
        headers: { authorization: 'Bearer env-secret-token' },
      });
      const { bounds } = (await pos.json()) as { bounds: { min_position: number[] | null } };
      assert.notEqual(bounds.min_position, null, 'the views were fitted to the opened file');
      const editors = (await (
        await fetch(`${url}/api/v1/rendering/editors`, { headers: { authorization: 'Bearer env-secret-token' } })
      ).json()) as Array<{ alias: string; active: boolean }>;
      assert.equal(editors.find((e) => e.alias === 'mxn')?.active, false);
    } finally {
      run.child.kill('SIGTERM');
    }
    assert.equal(await run.exited, 0, run.err());
    assert.match(run.out(), /stopped/);
    const log = await readFile(events, 'utf8');
    assert.equal(log.trimEnd().split('\n').length, 5);
    assert.ok(!log.includes('env-secret-token'));
  });
});

test('wbplay serve refuses bad usage with exit code 2 and a message saying what to do', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['serve', '--host', '0.0.0.0', '--port', '0'], /set --token .* or pass --allow-remote/],
    [['serve', '--port', 'eighty'], /--port must be a number/],
    [['serve', '--port', '0', '--inactive', 'both'], /--inactive takes stdmulti or mxn/],
    [['serve', '--port', '0', '--faults', 'explode@rate=1'], /--faults: fault item 'explode@rate=1': unknown kind/],
    [['serve', '--port', '0', '--open', '/no/such/file.nrrd'], /--open: cannot load \/no\/such\/file.nrrd/],
  ];
  await Promise.all(
    cases.map(async ([args, message]) => {
      const run = wbplay(args);
      assert.equal(await run.exited, 2, `${args.join(' ')}: ${run.err()}`);
      assert.match(run.err(), message);
      assert.ok(!run.err().includes('    at '), 'no stack trace');
    }),
  );
});

test('wbplay serve --help documents the fault spec', async () => {
  const run = wbplay(['serve', '--help']);
  assert.equal(await run.exited, 0);
  assert.match(run.out(), /drop-after/);
  assert.match(run.out(), /seed=N/);
  assert.match(run.out(), /WBPLAY_TOKEN/);
});
