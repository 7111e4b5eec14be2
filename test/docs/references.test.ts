// The reference pages of docs/ are what `npm run docs` makes of the code today; every YAML
// example in docs/ and the README is a file that works as shown: playbooks compile and run on
// the reference workbench, configurations load, the rest is well-formed YAML; and a default the
// playbook schema states is the value the compiler fills in.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { exitCodes } from '../../scripts/docs/cli-reference.js';
import { examplePlaybook } from '../../scripts/docs/step-examples.js';
import { fill, generateDocs } from '../../scripts/gen-docs.js';
import { loadConfig } from '../../src/cli/config.js';
import { compilePlaybook, loadPlaybook } from '../../src/compile/index.js';
import { runPlans } from '../../src/run/runner.js';
import { writeDemoData } from '../../src/sim/demo-data.js';
import { embeddedWorkbenches } from '../../src/sim/embedded.js';
import { registry } from '../../src/steps/registry.js';
import { STEP_KINDS } from '../../src/steps/step-definition.js';
import { root } from '../helpers/cohort.js';
import { ARCHIVE_PAGES, needsArchive } from '../helpers/archive-docs.js';
import { startTestWorkbench } from '../helpers/workbench.js';

let dir = '';
// The TypeScript loader by its own path: the examples run in a temporary folder.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-docs-'));
  await writeDemoData(join(dir, 'data'));
  await writeDemoData(join(dir, 'cohort'), { cohort: 4 });
});

after(() => rm(dir, { recursive: true, force: true }));

test('the generated references are up to date (npm run docs writes them)', async () => {
  for (const [path, text] of Object.entries(generateDocs())) {
    const lines = (await readFile(join(root, path), 'utf8')).split('\n');
    const fresh = text.split('\n');
    const at = fresh.findIndex((line, i) => line !== lines[i]);
    const first = at >= 0 ? at : fresh.length < lines.length ? fresh.length : -1;
    // The first line that differs, not the whole page: the fix is the same either way.
    assert.equal(
      first,
      -1,
      `${path} is stale from line ${first + 1} (run npm run docs):\n  in the file: ${lines[first]}\n  generated:   ${fresh[first]}`,
    );
  }
});

test('a template marker without a part, or a part without a marker, is an error', () => {
  assert.equal(fill('a {{x}} b', { x: 'X' }, 't'), 'a X b');
  assert.throws(() => fill('a {{y}}', { x: 'X' }, 't'), /no part named \{\{y\}\}/);
  assert.throws(() => fill('a', { x: 'X' }, 't'), /parts x have no marker/);
});

test('the exit codes are read from the EXIT table with their comments, and a code without one is an error', () => {
  const table = (body: string): string => `export const EXIT = {\n${body}\n} as const;\n`;
  assert.deepEqual(exitCodes(table('  /** Done. */\n  ok: 0,\n  /** Gone. */\n  lost: 75,')), [
    { name: 'ok', code: 0, meaning: 'Done.' },
    { name: 'lost', code: 75, meaning: 'Gone.' },
  ]);
  assert.throws(() => exitCodes(table('  /** Done. */\n  ok: 0,\n  lost: 75,')), /EXIT\.lost has no doc comment/);
  assert.ok(exitCodes().some((c) => c.code === 2 && c.name === 'usage'));
});

interface Block {
  file: string;
  line: number;
  text: string;
}

/** The code blocks of one language in the README and in every page of docs/. */
async function codeBlocks(lang: 'yaml' | 'ts'): Promise<Block[]> {
  const pages = [
    'README.md',
    ...(await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ];
  const blocks: Block[] = [];
  for (const file of pages) {
    const text = await readFile(join(root, file), 'utf8');
    for (const m of text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm')))
      blocks.push({ file, line: text.slice(0, m.index).split('\n').length, text: m[1]! });
  }
  return blocks;
}

const isPlaybook = (b: Block): boolean => /^version: 1$/m.test(b.text) && /^steps:/m.test(b.text);
const isConfig = (b: Block): boolean => b.text.includes('schemas/config.schema.json');
/** A block that names the file it is (`# file: show-ct.yaml`) is written there before the examples run. */
const fileName = (b: Block): string | undefined => /^# file: (\S+)/.exec(b.text)?.[1];

test('every YAML example in docs/ and the README works as shown', async () => {
  const blocks = await codeBlocks('yaml');
  assert.ok(blocks.filter(isPlaybook).length >= STEP_KINDS.length, 'the reference has an example per step kind');
  const named = blocks.filter((b) => fileName(b) !== undefined);
  const plans = [];
  const archived: string[] = [];
  for (const [i, b] of blocks.entries()) {
    const where = `${b.file}:${b.line}`;
    if (isPlaybook(b) && needsArchive(b.text)) {
      // Run against a real archive by test/dicomweb/docs-orthanc.test.ts, from the pages listed there.
      archived.push(b.file);
    } else if (isPlaybook(b) && fileName(b) === undefined) {
      // Each example in a folder of its own (its goldens are its own), with the demo data beside it.
      const folder = join(dir, `example-${i}`);
      await mkdir(folder);
      for (const data of ['data', 'cohort']) await symlink(join(dir, data), join(folder, data));
      for (const n of named) await writeFile(join(folder, fileName(n)!), n.text);
      const path = join(folder, 'example.yaml');
      await writeFile(path, b.text);
      const compiled = compilePlaybook(path, {
        vars: { out: join(folder, 'out') },
        env: { WBPLAY_DEMO: join(dir, 'data'), WBPLAY_COHORT: join(dir, 'cohort') },
      });
      assert.deepEqual(
        compiled.diagnostics.map((d) => `${d.code}: ${d.message}`),
        [],
        `${where}: the example does not compile`,
      );
      plans.push({ plan: compiled.plan!, where });
    } else if (isConfig(b)) {
      const folder = join(dir, `config-${i}`);
      await mkdir(folder);
      await writeFile(join(folder, 'wbplay.config.yaml'), b.text);
      assert.ok(await loadConfig(undefined, folder), `${where}: the configuration loads`);
    } else {
      assert.doesNotThrow(() => parse(b.text), `${where}: well-formed YAML`);
    }
  }
  assert.deepEqual(
    [...new Set(archived)].sort(),
    [...ARCHIVE_PAGES].sort(),
    'playbooks that need a DICOMweb archive appear on the pages the Orthanc docs test runs',
  );
  // Every example playbook runs on the reference workbench, and passes.
  const result = await runPlans({
    plans: plans.map((p) => p.plan),
    workbenches: embeddedWorkbenches(1),
    reporter: {},
    outputDir: join(dir, 'out'),
  });
  const failed = result.cases.summaries.filter((c) => c.status !== 'passed');
  const problems: string[] = [];
  for await (const c of result.cases.pick(result.cases.summaries.keys())) {
    if (c.status === 'passed') continue;
    const step = c.steps.find((s) => s.status !== 'passed');
    problems.push(
      `${plans.find((p) => p.plan.playbook.path === c.playbook)?.where}: ${step?.kind} ${step?.error?.message}`,
    );
  }
  assert.deepEqual(problems, [], `${failed.length} examples did not pass`);
});

/** The `default` of every field of a step kind's schema, first level and list items alike. */
function statedDefaults(schema: Record<string, unknown>): Array<{ field: string; value: unknown }> {
  const out: Array<{ field: string; value: unknown }> = [];
  const forms = (schema.anyOf ?? [schema]) as Record<string, unknown>[];
  for (const form of forms)
    for (const [field, prop] of Object.entries((form.properties ?? {}) as Record<string, { default?: unknown }>))
      if (prop.default !== undefined) out.push({ field, value: prop.default });
  return out;
}

test('a default the schema states is what the compiler fills in when the field is left out', async () => {
  let checked = 0;
  for (const kind of STEP_KINDS) {
    const defaults = statedDefaults(registry[kind].schema);
    if (defaults.length === 0) continue;
    const path = join(dir, `defaults-${kind}.yaml`);
    await writeFile(path, examplePlaybook(kind));
    const plan = loadPlaybook(path, { vars: { out: join(dir, 'out') }, env: {} });
    const step = plan.cases[0]!.steps.find((s) => s.kind === kind)!;
    for (const { field, value } of defaults) {
      assert.deepEqual((step.args as Record<string, unknown>)[field], value, `${kind}.${field}`);
      checked++;
    }
  }
  assert.ok(checked >= 2);
});

test('every TypeScript example runs as shown, against a reference workbench where it names MITK at port 8080', async () => {
  const blocks = await codeBlocks('ts');
  assert.ok(blocks.length >= 2, 'the client library is shown');
  const workbench = await startTestWorkbench();
  try {
    for (const [i, b] of blocks.entries()) {
      const file = join(dir, `example-${i}.mts`);
      const code = b.text
        .replaceAll("from 'wbplay'", `from ${JSON.stringify(pathToFileURL(join(root, 'src', 'index.ts')).href)}`)
        .replaceAll(
          "from 'wbplay/client'",
          `from ${JSON.stringify(pathToFileURL(join(root, 'src', 'client', 'index.ts')).href)}`,
        )
        .replaceAll('http://localhost:8080', workbench.url);
      await writeFile(file, code);
      const result = await new Promise<{ code: number | null; out: string }>((resolve) =>
        execFile(process.execPath, ['--import', tsx, file], { cwd: dir }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
        ),
      );
      assert.equal(result.code, 0, `${b.file}:${b.line}\n${result.out}`);
    }
  } finally {
    await workbench.stop();
  }
});

test('the docs index lists every reference page', async () => {
  const index = await readFile(join(root, 'docs', 'README.md'), 'utf8');
  for (const page of Object.keys(generateDocs()))
    assert.ok(index.includes(`](${page.slice('docs/'.length)})`), `${page} is listed in docs/README.md`);
});
