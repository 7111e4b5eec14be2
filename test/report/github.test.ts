// The github reporter: one `::error` workflow command per failed or erred step, at its playbook
// line, with GitHub's escaping, beside the console reporter.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { GithubReporter } from '../../src/report/github.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { wbplay } from '../helpers/cohort.js';

test('a failing step is annotated at its playbook line, next to the line output', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-github-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeDemoData(join(dir, 'data'));
  await writeFile(
    join(dir, 'p.yaml'),
    'version: 1\nname: Annotated\nsteps:\n  - load: { file: data/ct.nrrd, as: ct }\n  - expect_state: { of: node:ct, equals: { opacity: 0.5 } }\n  - set: { node: ct, opacity: 0.5 }\n',
  );
  const result = await wbplay(['run', 'p.yaml', '--reporter', 'line,github', '--out', 'out'], dir);
  assert.equal(result.code, 1, result.stderr);
  const annotations = result.stdout.split('\n').filter((l) => l.startsWith('::'));
  assert.equal(annotations.length, 1, result.stdout);
  assert.match(
    annotations[0]!,
    /^::error file=p\.yaml,line=5,col=5,title=Annotated › step 2 expect_state [^:]*::.*opacity/,
  );
  assert.match(result.stdout, /Annotated › step 2 expect_state/, 'the line reporter still writes');
});

test('messages and properties are escaped as the runner expects', () => {
  let out = '';
  const reporter = new GithubReporter({ write: (s: string) => ((out += s), true) });
  reporter.onStepEnd(
    { id: 'c', name: 'a, b: c', playbook: 'p.yaml', steps: [] },
    {
      index: 1,
      kind: 'load',
      description: 'x',
      span: { file: 'dir,1/p:q.yaml', line: 3, col: 4 },
      status: 'error',
      durationMs: 1,
      attempts: [],
      args: {},
      artefacts: [],
      notices: [],
      error: { code: 'E', message: '50% done\nnext line', hint: 'h' },
    },
  );
  assert.equal(
    out,
    '::error file=dir%2C1/p%3Aq.yaml,line=3,col=4,title=a%2C b%3A c › step 1 load x::E: 50%25 done%0Anext line%0Ahint: h\n',
  );
});
