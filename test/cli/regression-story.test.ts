// The regression story a user lives on the embedded reference workbench: record goldens of a
// plain image, change the data, and the next run must fail with a diff. A plain NRRD is an image
// whatever its values (only MITK's segmentation header makes a segmentation); one of two values
// MITK takes for a binary mask and draws in red, value 0 transparent, every other value alike.
// So moving a ball shows on screen in a mask (a ball on 0) and in an image with a grey ramp.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeImageBytes } from '../../src/volume/write-image.js';
import type { RunResultTree } from '../../src/result/result.js';
import { IDENTITY, type Volume } from '../../src/volume/volume.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src', 'cli', 'main.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wbplay-story-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function wbplay(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, main, ...args],
      { cwd, env: { PATH: process.env.PATH, ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

/** uint8, 24x20x16 voxels of 1 mm: a ball of radius 5 around (12 + shift, 10, 8) over `background`. */
function ballImage(shift: number, ball: number, background: (i: number, j: number, k: number) => number): Volume {
  const [nx, ny, nz] = [24, 20, 16];
  const frame = new Float32Array(nx * ny * nz);
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++)
        frame[i + nx * (j + ny * k)] =
          (i - 12 - shift) ** 2 + (j - 10) ** 2 + (k - 8) ** 2 <= 25 ? ball : background(i, j, k);
    }
  }
  const values = new Set(frame);
  return {
    dims: [nx, ny, nz],
    spacing: [1, 1, 1],
    origin: [0, 0, 0],
    direction: IDENTITY,
    frames: [frame],
    timeStepMs: 1,
    timeOriginMs: 0,
    componentType: 'uint8',
    range: [Math.min(...values), Math.max(...values)],
  };
}

const PLAYBOOK = `version: 1
name: Ball regression
steps:
  - load: { file: ball.nrrd, as: ball }
  - reinit: { nodes: [ball] }
  - expect_state: { of: node:ball, equals: { data_type: Image } }
  - expect_image: { of: stdmulti/axial, golden: goldens/axial.png }
`;

async function outcomes(out: string): Promise<string[]> {
  const result = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as RunResultTree;
  return result.cases[0]!.steps.filter((s) => s.kind === 'expect_image').map((s) => s.image?.outcome ?? s.status);
}

async function story(name: string, image: (shift: number) => Volume, checkRerun: boolean): Promise<void> {
  const cwd = join(dir, name);
  await rm(cwd, { recursive: true, force: true });
  await mkdir(cwd, { recursive: true });
  await writeFile(join(cwd, 'ball.yaml'), PLAYBOOK);
  await writeFile(join(cwd, 'ball.nrrd'), writeImageBytes(image(0), 'nrrd'));

  const record = await wbplay(cwd, ['run', 'ball.yaml', '--out', 'out-record', '--reporter', 'line,json']);
  assert.equal(record.code, 0, record.output);
  assert.deepEqual(await outcomes(join(cwd, 'out-record')), ['written'], 'the first run records the golden');

  if (checkRerun) {
    const same = await wbplay(cwd, ['run', 'ball.yaml', '--out', 'out-same', '--reporter', 'line,json'], {
      CI: 'true',
    });
    assert.equal(same.code, 0, same.output);
    assert.deepEqual(await outcomes(join(cwd, 'out-same')), ['identical'], 'the unchanged data passes');
  }

  await writeFile(join(cwd, 'ball.nrrd'), writeImageBytes(image(3), 'nrrd'));
  const moved = await wbplay(cwd, ['run', 'ball.yaml', '--out', 'out-moved', '--reporter', 'line,json'], {
    CI: 'true',
  });
  assert.equal(moved.code, 1, `moving the ball 3 voxels fails the run:\n${moved.output}`);
  assert.deepEqual(await outcomes(join(cwd, 'out-moved')), ['different']);
  const result = JSON.parse(await readFile(join(cwd, 'out-moved', 'report.json'), 'utf8')) as RunResultTree;
  const diffs = result.cases[0]!.steps.flatMap((s) => s.artefacts.filter((a) => a.kind === 'diff').map((a) => a.path));
  assert.equal(diffs.length, 1, 'a diff image');
  await access(join(cwd, 'out-moved', diffs[0]!));
}

test('a two-valued uint8 image, a mask (a ball of 220 on 0): goldens recorded, the ball moved 3 voxels, the run fails with a diff', async () => {
  const image = (shift: number): Volume => ballImage(shift, 220, () => 0);
  assert.deepEqual(
    [...new Set(image(0).frames[0])].sort((a, b) => a - b),
    [0, 220],
  );
  await story('two-valued', image, true);
});

test('a ball over a grey ramp of 48 values from 20 to 243: goldens recorded, the ball moved 3 voxels, the run fails with a diff', async () => {
  const image = (shift: number): Volume => ballImage(shift, 243, (i, j, k) => 20 + ((i + 2 * j + 3 * k) % 47) * 4);
  const values = [...new Set(image(0).frames[0])];
  assert.equal(values.length, 48);
  assert.deepEqual([Math.min(...values), Math.max(...values)], [20, 243]);
  await story('ramp', image, false);
});
