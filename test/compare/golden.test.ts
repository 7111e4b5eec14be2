import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CompareError } from '../../src/image/image-error.js';
import { checkGolden, type UpdateMode } from '../../src/compare/golden.js';
import { card, copy, png, pngjsPixels, setPixel, withTempDir } from './images.js';

const base = card(24, 24);
const changed = copy(base);
for (let x = 5; x < 9; x++) setPixel(changed, x, 7, [255, 0, 255]);
const basePng = png(base);
const changedPng = png(changed);
const reencoded = png(base, { filterType: 1 });

async function files(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

interface Setup {
  golden?: Uint8Array;
  actual: Uint8Array;
  update: UpdateMode;
  ci: boolean;
}

async function run(setup: Setup) {
  return withTempDir(async (dir) => {
    const goldenPath = join(dir, 'goldens', 'sub', 'axial.png');
    const outputDir = join(dir, 'out');
    if (setup.golden) {
      await mkdir(join(dir, 'goldens', 'sub'), { recursive: true });
      await writeFile(goldenPath, setup.golden);
    }
    const outcome = await checkGolden({
      actualPng: setup.actual,
      goldenPath,
      outputDir,
      name: 'case-1-axial',
      update: setup.update,
      ci: setup.ci,
    });
    let golden: Buffer | undefined;
    try {
      golden = await readFile(goldenPath);
    } catch {
      golden = undefined;
    }
    return {
      outcome,
      golden,
      outFiles: await files(outputDir),
      goldenDirFiles: await files(join(dir, 'goldens', 'sub')),
      outputDir,
      goldenPath,
    };
  });
}

test('a missing golden fails in CI unless updates ask for it, writing only the capture for inspection', async () => {
  for (const update of ['none', 'changed'] as const) {
    const r = await run({ actual: basePng, update, ci: true });
    assert.equal(r.outcome.status, 'failed', update);
    assert.equal(r.golden, undefined, update);
    assert.deepEqual(r.outFiles, ['case-1-axial-actual.png']);
    assert.match(r.outcome.notice!, /missing; in CI it is never recorded/);
  }
  for (const update of ['missing', 'all'] as const) {
    const r = await run({ actual: basePng, update, ci: true });
    assert.equal(r.outcome.status, 'written', update);
    assert.deepEqual(r.golden, Buffer.from(basePng));
  }
});

test('outside CI a missing golden is written with a notice, unless updates are off', async () => {
  for (const update of ['missing', 'changed', 'all'] as const) {
    const r = await run({ actual: basePng, update, ci: false });
    assert.equal(r.outcome.status, 'written', update);
    assert.deepEqual(r.golden, Buffer.from(basePng));
    assert.match(r.outcome.notice!, /was missing and has been written/);
    assert.deepEqual(r.outFiles, []);
    assert.deepEqual(r.goldenDirFiles, ['axial.png'], 'no temporary file is left next to the golden');
  }
  const off = await run({ actual: basePng, update: 'none', ci: false });
  assert.equal(off.outcome.status, 'failed');
  assert.equal(off.golden, undefined);
  assert.match(off.outcome.notice!, /--update-goldens=none/);
});

test('a passing comparison never rewrites the golden, except with all', async () => {
  for (const ci of [false, true]) {
    for (const update of ['none', 'missing', 'changed'] as const) {
      const r = await run({ golden: basePng, actual: reencoded, update, ci });
      assert.equal(r.outcome.status, 'passed', `${update} ci=${String(ci)}`);
      assert.equal(r.outcome.comparison!.kind, 'identical');
      assert.deepEqual(r.golden, Buffer.from(basePng), 'the golden keeps its own bytes');
      assert.deepEqual(r.outFiles, []);
    }
    const all = await run({ golden: basePng, actual: reencoded, update: 'all', ci });
    assert.equal(all.outcome.status, 'updated');
    assert.deepEqual(all.golden, Buffer.from(reencoded));
  }
});

test('a failing comparison writes expected, actual and diff, and changes the golden only with changed or all', async () => {
  for (const ci of [false, true]) {
    for (const update of ['none', 'missing'] as const) {
      const r = await run({ golden: basePng, actual: changedPng, update, ci });
      assert.equal(r.outcome.status, 'failed');
      assert.equal(r.outcome.comparison!.diffPixels, 4);
      assert.deepEqual(r.golden, Buffer.from(basePng));
      assert.deepEqual(r.outFiles, ['case-1-axial-actual.png', 'case-1-axial-diff.png', 'case-1-axial-expected.png']);
      assert.equal(r.outcome.artefacts.diff, join(r.outputDir, 'case-1-axial-diff.png'));
    }
    for (const update of ['changed', 'all'] as const) {
      const r = await run({ golden: basePng, actual: changedPng, update, ci });
      assert.equal(r.outcome.status, 'updated');
      assert.deepEqual(r.golden, Buffer.from(changedPng));
      assert.deepEqual(r.outFiles, []);
      assert.match(r.outcome.notice!, /updated \(4 pixels differ/);
    }
  }
});

test('the artefacts are the golden, the capture and a diff of the same size', async () => {
  await withTempDir(async (dir) => {
    const goldenPath = join(dir, 'g.png');
    await writeFile(goldenPath, basePng);
    const outcome = await checkGolden({
      actualPng: changedPng,
      goldenPath,
      outputDir: join(dir, 'deep', 'out'),
      name: 'n',
      update: 'none',
      ci: true,
      options: { maxDiffPixels: 3 },
    });
    assert.equal(outcome.status, 'failed');
    assert.deepEqual(await readFile(outcome.artefacts.expected!), Buffer.from(basePng));
    assert.deepEqual(await readFile(outcome.artefacts.actual!), Buffer.from(changedPng));
    const diff = pngjsPixels(await readFile(outcome.artefacts.diff!));
    assert.equal(diff.width, 24);
    assert.equal(diff.height, 24);
    assert.match(outcome.comparison!.message, /allowed 3 pixels \(max_diff_pixels\)/);
  });
});

test('a damaged golden is an error naming it, and is replaced only with all', async () => {
  await assert.rejects(
    run({ golden: basePng.subarray(0, 40), actual: basePng, update: 'changed', ci: false }),
    (error: unknown) =>
      error instanceof CompareError &&
      error.code === 'BAD_PNG' &&
      /^golden .*axial\.png: the expected image is not a valid PNG/.test(error.message),
  );
  const r = await run({ golden: basePng.subarray(0, 40), actual: basePng, update: 'all', ci: true });
  assert.equal(r.outcome.status, 'updated');
  assert.deepEqual(r.golden, Buffer.from(basePng));
});

test('a damaged capture is an error even when goldens are rewritten', async () => {
  await assert.rejects(
    run({ golden: basePng, actual: basePng.subarray(0, 40), update: 'all', ci: false }),
    /the actual image is not a valid PNG/,
  );
});
