import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

// The folder graph is only a guarantee if lint fails on a crossing; these imports are linted as
// if they stood in the named file.
const eslint = new ESLint();

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('an import against the pipeline order fails lint and names what the folder may import', async () => {
  const messages = await restrictedImports(
    'src/client/probe.ts',
    "import { runPlans } from '../run/runner.js';\nexport const x = runPlans;\n",
  );
  assert.equal(messages.length, 1);
  assert.match(messages[0]!, /src\/client\/ may import only api, markup, diagnostics, image, files, result/);
});

test('low layers and the runner cannot reach the reference workbench; nested files are held too', async () => {
  for (const [file, spec] of [
    ['src/image/probe.ts', '../result/result.js'],
    ['src/run/probe.ts', '../sim/embedded.js'],
    ['src/steps/post-run/probe.ts', '../../report/html.js'],
    ['src/sim/routes/probe.ts', '../../client/client.js'],
    ['src/volume/probe.ts', '../sim/workbench.js'],
    ['src/volume/probe.ts', '../steps/load.js'],
  ] as const) {
    const messages = await restrictedImports(file, `import * as m from '${spec}';\nexport const x = m;\n`);
    assert.equal(messages.length, 1, `${file} importing ${spec}`);
  }
});

test('imports the graph allows, and imports inside a folder, pass', async () => {
  for (const [file, spec] of [
    ['src/report/probe.ts', '../run/runner.js'],
    ['src/cli/probe.ts', '../sim/embedded.js'],
    ['src/sim/routes/probe.ts', '../viewer/viewer.js'],
    ['src/steps/post-run/probe.ts', '../../image/rgba.js'],
    ['src/steps/probe.ts', '../volume/nrrd-writer.js'],
    ['src/sim/routes/probe.ts', '../../volume/read-image.js'],
  ] as const) {
    assert.deepEqual(
      await restrictedImports(file, `import * as m from '${spec}';\nexport const x = m;\n`),
      [],
      `${file} importing ${spec}`,
    );
  }
});
