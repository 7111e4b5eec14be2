import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { compilePlaybook, loadPlaybook, type Plan, type PlanStep } from '../../src/compile/index.js';
import { PlaybookError } from '../../src/diagnostics/diagnostic.js';
import { STEP_KINDS } from '../../src/steps/step-definition.js';
import { writeFileIn } from '../helpers/files.js';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-compile-'));
  await mkdir(join(dir, 'data'));
  await writeFile(join(dir, 'data', 'ct.nrrd'), '');
  await writeFile(join(dir, 'data', 'label.nrrd'), '');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function playbook(name: string, text: string): Promise<string> {
  return writeFileIn(dir, name, text);
}

function steps(plan: Plan, c = 0): PlanStep[] {
  return plan.cases[c]?.steps ?? [];
}

test('every step kind compiles, describes itself and lands in the plan in order', async () => {
  const file = await playbook(
    'all.yaml',
    `version: 1
steps:
  - layout: { document: { version: "2.0", root: { type: split, orientation: horizontal, children: [{ type: window, id: mxn__a, view_direction: axial, links: { selection: main } }] } } }
  - load: { file: data/ct.nrrd, as: ct }
  - set: { node: ct, opacity: 0.5 }
  - hide_all
  - remove: { node: ct }
  - reinit
  - update: 3d
  - position: [1, 2, 3]
  - time: { ms: 40 }
  - slice: { window: mxn/mxn__a, step: 2 }
  - camera: { window: stdmulti/axial, parallel_scale: 40 }
  - window_node: { window: stdmulti/3d, node: ct, layer: 2 }
  - screenshot: { of: app, save: out/app.jpg }
  - figure: { save: out/figure.png, width: 89mm, panels: [{ window: mxn/mxn__a, scale_bar: 10 }] }
  - store: { dicomweb: "http://127.0.0.1:8042/dicom-web", images: [out/figure.png], study: "1.2.3" }
  - expect_image: { of: stdmulti, golden: g.png }
  - expect_state: { of: position, equals: { position: [1, 2, 3] } }
  - wait: { ms: 5 }
  - include: { file: inc/part.yaml }
`,
  );
  await playbook('inc/part.yaml', 'version: 1\nsteps:\n  - update\n');
  const plan = loadPlaybook(file, { env: {}, displayRoot: dir });
  const kinds = steps(plan).map((s) => s.kind);
  assert.deepEqual(new Set([...kinds, 'include']), new Set(STEP_KINDS));
  assert.deepEqual(
    steps(plan).map((s) => s.index),
    kinds.map((_, i) => i + 1),
  );
  for (const s of steps(plan)) assert.ok(s.description.length > 0);
  // Plain data: it survives JSON unchanged.
  assert.deepEqual(JSON.parse(JSON.stringify(plan)), plan);
  const shot = steps(plan).find((s) => s.kind === 'screenshot');
  assert.equal(shot?.kind === 'screenshot' && shot.args.format, 'jpeg');
  assert.equal(shot?.kind === 'screenshot' && shot.args.save, join(dir, 'out', 'app.jpg'));
  const update = steps(plan)
    .filter((s) => s.kind === 'update')
    .map((s) => s.kind === 'update' && s.args.which);
  assert.deepEqual(update, ['3d', 'all']);
});

test('included steps keep their own file and line, and say which include brought them', async () => {
  const file = await playbook(
    'outer.yaml',
    'version: 1\nsteps:\n  - load: { file: data/ct.nrrd, as: ct }\n  - include: { file: parts/show.yaml, vars: { level: 0.25 } }\n  - set: { node: overlay, visible: true }\n',
  );
  await playbook(
    'parts/show.yaml',
    'version: 1\nvars:\n  level: 1\nsteps:\n  - set: { node: ct, opacity: "${level}" }\n  - load: { file: ../data/label.nrrd, as: overlay }\n',
  );
  const plan = loadPlaybook(file, { env: {}, displayRoot: dir });
  const [, set, load, last] = steps(plan);
  assert.deepEqual(set?.span, { file: 'parts/show.yaml', line: 5, col: 5 });
  assert.deepEqual(set?.via, [{ file: 'outer.yaml', line: 4, col: 5 }]);
  assert.equal(set?.kind === 'set' && set.args.opacity, 0.25, "the include step's vars win over the file's own");
  assert.equal(
    load?.kind === 'load' && load.args.file,
    join(dir, 'data', 'label.nrrd'),
    'paths resolve against the included file',
  );
  assert.equal(last?.span.line, 5, 'an alias defined inside an include is known after it');
  assert.deepEqual(
    plan.sources.map((s) => s.path),
    [file, join(dir, 'parts', 'show.yaml')],
  );
});

test('interpolation: env with default, escapes, native types, command-line override', async () => {
  const file = await playbook(
    'vars.yaml',
    'version: 1\nvars:\n  wait: 250\n  out: ${env.OUT_DIR:-shots}\n  nested: "${out}/x"\nsteps:\n  - wait: { ms: "${wait}" }\n  - screenshot: { of: app, save: "${nested}/$${literal}.png" }\n',
  );
  let plan = loadPlaybook(file, { env: {}, displayRoot: dir });
  const [wait, shot] = steps(plan);
  assert.equal(wait?.kind === 'wait' && wait.args.ms, 250);
  assert.equal(shot?.kind === 'screenshot' && shot.args.save, join(dir, 'shots', 'x', '${literal}.png'));
  plan = loadPlaybook(file, { env: { OUT_DIR: '/abs/out' }, displayRoot: dir });
  assert.equal(
    steps(plan)[1]?.kind === 'screenshot' && (steps(plan)[1]?.args as { save: string }).save,
    '/abs/out/x/${literal}.png',
  );
  // A value from the command line is typed in a shell: as the first folder of a path it starts
  // at the working folder, even as a bare name.
  plan = loadPlaybook(file, { env: {}, vars: { out: 'cli' }, displayRoot: dir });
  assert.equal((steps(plan)[1]?.args as { save: string }).save, join(process.cwd(), 'cli', 'x', '${literal}.png'));
  assert.equal(plan.vars.out, 'cli');
});

test('a token is never kept in the plan, only where it comes from', async () => {
  const fromEnv = await playbook(
    't1.yaml',
    'version: 1\nworkbench:\n  url: ${env.WB_URL}\n  token: ${env.WB_TOKEN}\nsteps:\n  - reinit\n',
  );
  const plan = loadPlaybook(fromEnv, {
    env: { WB_URL: 'http://10.0.0.5:8080', WB_TOKEN: 's3cret-token-value' },
    displayRoot: dir,
  });
  assert.deepEqual(plan.workbench, { url: 'http://10.0.0.5:8080', token: { env: 'WB_TOKEN' } });
  assert.doesNotMatch(JSON.stringify(plan), /s3cret/);
  const literal = await playbook(
    't2.yaml',
    'version: 1\nworkbench: { token: literally-in-the-file }\nsteps:\n  - reinit\n',
  );
  const plan2 = loadPlaybook(literal, { env: {}, displayRoot: dir });
  assert.deepEqual(plan2.workbench, { token: { redacted: true } });
  assert.doesNotMatch(JSON.stringify(plan2), /literally-in-the-file/);
  // No URL anywhere: the runner picks the embedded workbench; that is not an error.
  const plan3 = loadPlaybook(fromEnv, { env: {}, displayRoot: dir });
  assert.equal(plan3.workbench.url, undefined);
});

test('expect_image takes its tolerance from defaults, a step overrides it, regions inherit', async () => {
  const file = await playbook(
    'tol.yaml',
    `version: 1
defaults:
  expect_image: { threshold: 0.2, max_diff_ratio: 0.01, stable: true }
steps:
  - expect_image: { of: stdmulti/axial, golden: a.png }
  - expect_image: { of: stdmulti/axial, golden: b.png, max_diff_pixels: 3, regions: [{ x: 0, y: 0, width: 4, height: 4, threshold: 0.5 }] }
  - include: { file: plain.yaml }
`,
  );
  await playbook('plain.yaml', 'version: 1\nsteps:\n  - expect_image: { of: app, golden: c.png }\n');
  const [a, b, c] = steps(loadPlaybook(file, { env: {}, displayRoot: dir })).map(
    (s) => s.args as Record<string, unknown>,
  );
  assert.deepEqual([a?.threshold, a?.max_diff_ratio, a?.max_diff_pixels, a?.stable], [0.2, 0.01, undefined, true]);
  assert.deepEqual([b?.threshold, b?.max_diff_ratio, b?.max_diff_pixels], [0.2, 0.01, 3]);
  assert.deepEqual(b?.regions, [
    { x: 0, y: 0, width: 4, height: 4, threshold: 0.5, max_diff_pixels: 3, max_diff_ratio: 0.01 },
  ]);
  assert.equal(c?.threshold, 0.2, 'an include inherits the defaults');
  const bare = await playbook('bare.yaml', 'version: 1\nsteps:\n  - expect_image: { of: app, golden: c.png }\n');
  const [d] = steps(loadPlaybook(bare, { env: {}, displayRoot: dir })).map((s) => s.args as Record<string, unknown>);
  assert.deepEqual(
    [d?.threshold, d?.max_diff_pixels, d?.max_diff_ratio, d?.stable],
    [0.1, undefined, undefined, false],
  );
});

test('foreach from a glob, a CSV and a JSON manifest makes one case per study', async () => {
  for (const s of ['s-b', 's-a']) {
    await mkdir(join(dir, 'studies', s), { recursive: true });
    await writeFile(join(dir, 'studies', s, 'ct.nrrd'), '');
  }
  await writeFile(
    join(dir, 'studies', 'index.csv'),
    'name,path,x,note\ns-a,s-a,1.5,"a, quoted ""note"""\ns-b,s-b,-2,plain\n',
  );
  await writeFile(
    join(dir, 'studies', 'index.json'),
    JSON.stringify([{ name: 'one', path: 's-a', x: 7 }, { path: 's-b' }]),
  );
  const body =
    'steps:\n  - load: { file: "${s.path}/ct.nrrd", as: ct }\n  - screenshot: { of: app, save: "out/${s.name}.png" }\n';
  const glob = loadPlaybook(await playbook('g.yaml', `version: 1\nforeach: { glob: "studies/s-*/", as: s }\n${body}`), {
    env: {},
    displayRoot: dir,
  });
  assert.deepEqual(
    glob.cases.map((c) => c.name),
    ['s-a', 's-b'],
  );
  assert.deepEqual(glob.cases[0]?.study, { path: join(dir, 'studies', 's-a'), dir: join(dir, 'studies'), name: 's-a' });
  assert.deepEqual(glob.cases[1]?.outputs, [join(dir, 'out', 's-b.png')]);
  assert.deepEqual(glob.cases[1]?.inputs, [join(dir, 'studies', 's-b', 'ct.nrrd')]);
  const csv = loadPlaybook(
    await playbook('c.yaml', `version: 1\nforeach: { csv: studies/index.csv, as: s }\n${body}`),
    { env: {}, displayRoot: dir },
  );
  assert.deepEqual(csv.cases[0]?.study, {
    name: 's-a',
    path: join(dir, 'studies', 's-a'),
    x: 1.5,
    note: 'a, quoted "note"',
    dir: join(dir, 'studies'),
  });
  assert.equal(csv.cases[1]?.study?.x, -2);
  assert.deepEqual(csv.foreach, { as: 's', source: 'csv', from: join(dir, 'studies', 'index.csv'), count: 2 });
  const json = loadPlaybook(
    await playbook('j.yaml', `version: 1\nforeach: { json: studies/index.json, as: s }\n${body}`),
    { env: {}, displayRoot: dir },
  );
  assert.deepEqual(
    json.cases.map((c) => c.name),
    ['one', 's-b'],
  );
});

test('a foreach over studies that do not exist yet still validates without --check-files', async () => {
  const file = await playbook(
    'later.yaml',
    'version: 1\nforeach: { csv: nowhere/studies.csv }\nsteps:\n  - load: { file: "${study.path}/ct.nrrd", as: ct }\n  - position: ["${study.x}", 0, 0]\n',
  );
  assert.deepEqual(compilePlaybook(file, { env: {}, checkFiles: false }).diagnostics, []);
  assert.deepEqual(
    compilePlaybook(file, { env: {}, checkFiles: true }).diagnostics.map((d) => d.code),
    ['FILE_NOT_FOUND'],
  );
});

test('two steps of one case that write one file collide', async () => {
  const file = await playbook(
    'twice.yaml',
    'version: 1\nsteps:\n  - screenshot: { of: app, save: out/a.png }\n  - screenshot: { of: stdmulti, save: ./out/a.png }\n',
  );
  const r = compilePlaybook(file, { env: {}, displayRoot: dir });
  assert.deepEqual(
    r.diagnostics.map((d) => [d.code, d.span?.line]),
    [['OUTPUT_COLLISION', 4]],
  );
});

test('files: relative to the playbook, checked only with checkFiles', async () => {
  const file = await playbook(
    'nested/deep/p.yaml',
    'version: 1\nsteps:\n  - load: { file: ../../data/ct.nrrd }\n  - load: { file: gone.nrrd }\n',
  );
  const strict = compilePlaybook(file, { env: {}, displayRoot: dir });
  assert.deepEqual(
    strict.diagnostics.map((d) => [d.code, d.span?.line, d.span?.file]),
    [['FILE_NOT_FOUND', 4, 'nested/deep/p.yaml']],
  );
  const plan = loadPlaybook(file, { env: {}, checkFiles: false });
  assert.equal((steps(plan)[0]?.args as { file: string }).file, join(dir, 'data', 'ct.nrrd'));
});

test('loadPlaybook throws a PlaybookError with every diagnostic; a missing playbook is one diagnostic', async () => {
  const file = await playbook('bad.yaml', 'version: 1\nsteps:\n  - set: { node: x, opacity: 3 }\n  - wait: {}\n');
  assert.throws(
    () => loadPlaybook(file, { env: {} }),
    (err: unknown) => err instanceof PlaybookError && err.diagnostics.length === 2,
  );
  const missing = compilePlaybook(join(dir, 'no-such.yaml'), { env: {} });
  assert.deepEqual(
    missing.diagnostics.map((d) => d.code),
    ['READ_ERROR'],
  );
});

test('node references: uid: and name: need no earlier step, an alias does', async () => {
  const file = await playbook(
    'refs.yaml',
    'version: 1\nsteps:\n  - set: { node: "uid:abc-123", visible: false }\n  - set: { node: "name:Liver", visible: true }\n  - load: { file: data/ct.nrrd, name: Scan }\n  - remove: { node: Scan }\n',
  );
  const plan = loadPlaybook(file, { env: {} });
  assert.deepEqual(
    steps(plan).map((s) => (s.args as { node?: unknown }).node),
    [{ uid: 'abc-123' }, { name: 'Liver' }, undefined, { ref: 'Scan' }],
  );
});

test('checkOnly finds the same problems and builds no plan', async () => {
  const bad = await playbook(
    'co-bad.yaml',
    'version: 1\nsteps:\n  - load: { file: data/ct.nrrd, as: ct }\n  - set: { node: ct, opacity: 3 }\n  - include: { file: co-inc.yaml }\n',
  );
  await playbook('co-inc.yaml', 'version: 1\nsteps:\n  - remove: { node: nothing }\n');
  const full = compilePlaybook(bad, { env: {} });
  const check = compilePlaybook(bad, { env: {}, checkOnly: true });
  assert.deepEqual(check.diagnostics, full.diagnostics);
  assert.deepEqual(
    full.diagnostics.map((d) => d.code),
    ['OUT_OF_RANGE', 'UNKNOWN_NODE'],
  );
  const good = await playbook('co-good.yaml', 'version: 1\nsteps:\n  - reinit\n');
  assert.deepEqual(compilePlaybook(good, { env: {}, checkOnly: true }), {
    diagnostics: [],
    warnings: [],
    sources: compilePlaybook(good, { env: {} }).sources,
  });
});
