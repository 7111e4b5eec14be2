// `wbplay review` from the command line: it prints the page's address and serves the page;
// one review at a time holds the output folder, so a second review or a run into it is refused
// while the first is open, and Ctrl-C gives the folder back.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeCohort, spawnWbplay, wbplay } from '../helpers/cohort.js';

test('a review holds its output folder until Ctrl-C: a second review and a run into it are refused', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-review-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await makeCohort(dir, 2);
  assert.equal((await wbplay(['run', 'cohort.yaml', '--out', 'out'], dir)).code, 0);
  const child = spawnWbplay(['review', 'out', '--reviewer', 'Ana', '--no-open'], dir);
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /^Reviewing 2 cases of out as Ana at (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C to stop\)$/m.exec(out);
        if (m) resolve(m[1]!);
      });
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    assert.match(await (await fetch(url)).text(), /<title>wbplay review<\/title>/);
    const second = await wbplay(['review', 'out', '--no-open'], dir);
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /OUTPUT_FOLDER_IN_USE/);
    assert.match(second.stderr, /wbplay review out --reviewer Ana --no-open/, 'it names the review that holds it');
    const run = await wbplay(['run', 'cohort.yaml', '--out', 'out'], dir);
    assert.equal(run.code, 2, run.stderr);
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0);
  assert.equal((await wbplay(['run', 'cohort.yaml', '--out', 'out'], dir)).code, 0, 'the folder is free again');
});
