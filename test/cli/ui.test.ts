// `wbplay ui` from the command line against a workbench given by URL (a reference workbench that
// wants a token stands in for MITK): the token comes from the environment, each run starts from
// a clean scene, the page names the workbench, Ctrl-C ends it with 130; usage errors end it
// before anything is served.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { spawnWbplay, wbplay } from '../helpers/cohort.js';
import { nodeNames } from '../helpers/net.js';
import { startTestWorkbench } from '../helpers/workbench.js';

const PLAYBOOK = [
  'version: 1',
  'name: By URL',
  'steps:',
  '  - load: { file: data/ct.nrrd, as: ct }',
  '  - reinit',
  '  - screenshot: { of: stdmulti/axial, save: "${out}/axial.png" }',
  '',
].join('\n');

/** The first event of the page's stream: the whole state. */
async function firstState(pageUrl: string): Promise<{ workbench: string; run: number }> {
  const html = await (await fetch(pageUrl)).text();
  const token = /name="wbplay-ui" content="([0-9a-f]+)"/.exec(html)![1]!;
  const controller = new AbortController();
  const res = await fetch(`${pageUrl}api/events`, { headers: { 'x-wbplay-ui': token }, signal: controller.signal });
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  const block = text.slice(0, text.indexOf('\n\n'));
  assert.match(block, /^event: state\n/);
  return JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { workbench: string; run: number };
}

test('against a workbench by URL: the token from the environment, a clean scene for each run, Ctrl-C ends it with 130', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-ui-url-'));
  const wb = await startTestWorkbench({ token: 's3cret' });
  t.after(async () => {
    await wb.stop();
    await rm(dir, { recursive: true, force: true });
  });
  await writeDemoData(join(dir, 'data'));
  await writeFile(join(dir, 'p.yaml'), PLAYBOOK);
  const child = spawnWbplay(['ui', 'p.yaml', '--url', wb.url, '--no-open', '--out', 'ui-out'], dir, {
    WORKBENCH_TOKEN: 's3cret',
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const until = async (pattern: RegExp): Promise<void> => {
    const deadline = Date.now() + 60_000;
    while (!pattern.test(out)) {
      assert.ok(Date.now() < deadline, `no ${pattern} within 60 s:\n${out}`);
      await sleep(50);
    }
  };
  try {
    await until(/wbplay ui: run 1: passed/);
    const pageUrl = /wbplay ui: serving (http:\S+)/.exec(out)![1]!;
    const state = await firstState(pageUrl);
    assert.equal(state.workbench, wb.url, 'the page names the workbench');
    assert.doesNotMatch(out, /embedded reference workbench/);
    const first = await nodeNames(wb.url, 's3cret');
    assert.ok(first.length > 0);
    await writeFile(join(dir, 'p.yaml'), PLAYBOOK.replace('By URL', 'By URL again'));
    await until(/wbplay ui: run 2: passed/);
    assert.deepEqual(await nodeNames(wb.url, 's3cret'), first, 'the nodes of run 1 were removed first');
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 130);
  assert.doesNotMatch(out, /s3cret/, 'the token is never printed');
});

test('usage errors end wbplay ui with 2 before it serves anything', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-ui-usage-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'p.yaml'), PLAYBOOK);
  const cases: Array<[string[], RegExp]> = [
    [['ui', 'p.yaml', '--port', 'eighty'], /--port must be a port number/],
    [['ui', 'p.yaml', '--url', 'localhost:8080'], /did you mean http:\/\/localhost:8080\?/],
    [['ui', 'p.yaml', '--var', '1bad=x'], /^error\[BAD_VAR\]: `--var 1bad=x` is not of the form name=value/],
    [['ui'], /no playbook given, and there is no playbooks folder here/],
  ];
  for (const [args, message] of cases) {
    const result = await wbplay([...args, '--no-open'], dir);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
    assert.doesNotMatch(result.stdout, /serving/);
  }
});
