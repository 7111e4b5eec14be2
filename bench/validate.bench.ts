// `wbplay validate` of a generated 2,000-step playbook as a whole process (the built CLI),
// against `node -e 0` on the same machine in the same run. Target: median ratio <= 3x.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_CLI, buildPackage } from './built.js';

const CLI = PACKAGE_CLI;
const STEPS = 2000;
const RUNS = 21;

/** A playbook that uses every kind of step, with real (empty) input files so they are checked. */
export function generatePlaybook(steps: number): string {
  const lines = [
    'version: 1',
    'name: Generated',
    'vars:',
    '  out: out',
    'defaults:',
    '  expect_image: { threshold: 0.1, max_diff_ratio: 0.001 }',
    'steps:',
  ];
  lines.push('  - load: { file: data/ct.nrrd, as: ct }');
  lines.push('  - load: { file: data/label.nrrd, as: label, parent: ct, color: [1, 0.3, 0.2], opacity: 0.6 }');
  lines.push('  - layout: { file: layout.json }');
  const cycle = [
    (i: number) => `  - set: { node: label, opacity: ${(i % 10) / 10} }`,
    (i: number) => `  - slice: { window: stdmulti/axial, step: ${i % 64} }`,
    () => '  - camera: { window: stdmulti/3d, standard_view: anterior }',
    (i: number) => `  - position: [${i % 50}, 12.5, -4]`,
    (i: number) => `  - time: { step: ${i % 8} }`,
    () => '  - window_node: { window: mxn/mxn__ct_axial, node: label, visible: false }',
    (i: number) => `  - screenshot: { of: stdmulti/axial, save: "\${out}/shot-${i}.png", width: 256, height: 256 }`,
    (i: number) => `  - expect_image: { of: stdmulti/coronal, golden: goldens/g-${i}.png }`,
    () => '  - expect_state: { of: stdmulti/axial/slice, equals: { step: 3 } }',
    () => '  - reinit: { nodes: [ct] }',
    () => '  - update: 2d',
    () => '  - wait: { ms: 1 }',
  ];
  for (let i = lines.length - 7 + 3; i < steps; i++) lines.push((cycle[i % cycle.length] ?? cycle[0]!)(i));
  return `${lines.join('\n')}\n`;
}

function timeRun(args: string[], cwd: string): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

export default async function bench(): Promise<void> {
  // The benchmark measures the built CLI, as users run it.
  buildPackage();
  if (!existsSync(CLI)) throw new Error(`the build did not produce ${CLI}`);
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-validate-bench-'));
  try {
    await mkdir(join(dir, 'data'));
    await writeFile(join(dir, 'data', 'ct.nrrd'), '');
    await writeFile(join(dir, 'data', 'label.nrrd'), '');
    await writeFile(
      join(dir, 'layout.json'),
      JSON.stringify({
        version: '2.0',
        root: {
          type: 'split',
          orientation: 'horizontal',
          children: [{ type: 'window', id: 'mxn__ct_axial', view_direction: 'axial', links: { selection: 'main' } }],
        },
      }),
    );
    await writeFile(join(dir, 'big.yaml'), generatePlaybook(STEPS));
    const baseline: number[] = [];
    const validate: number[] = [];
    timeRun(['-e', '0'], dir);
    timeRun([CLI, 'validate', 'big.yaml'], dir);
    for (let i = 0; i < RUNS; i++) {
      baseline.push(timeRun(['-e', '0'], dir));
      validate.push(timeRun([CLI, 'validate', 'big.yaml'], dir));
    }
    const b = median(baseline);
    const v = median(validate);
    console.log(`node -e 0:                        median ${b.toFixed(1)} ms (${RUNS} runs)`);
    console.log(`wbplay validate (${STEPS} steps):    median ${v.toFixed(1)} ms`);
    console.log(`ratio: ${(v / b).toFixed(2)}x, target <= 3x: ${v / b <= 3 ? 'MET' : 'MISSED'}`);
    // The fastest runs are the least disturbed by other work on the machine.
    console.log(`ratio of the fastest runs: ${(Math.min(...validate) / Math.min(...baseline)).toFixed(2)}x`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
