// The cost of a publication figure: the example figure (2x3 panels, 183 mm) at 300 and 600 dpi,
// against capturing the same six panels at the same size as plain screenshots, in one process on
// one embedded reference workbench. The difference is what composing, rasterising and writing
// the PNG and the SVG cost.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlaybook } from '../src/compile/index.js';
import { gridGeometry, isGeometryProblem } from '../src/figure/geometry.js';
import type { StepResult } from '../src/result/result.js';
import { runPlans } from '../src/run/runner.js';
import { writeDemoData } from '../src/sim/demo-data.js';
import { embeddedWorkbenches } from '../src/sim/embedded.js';
import type { FigureArgs } from '../src/steps/figure.js';

const RUNS = 5;
const CELLS = ['ct_axial', 'ct_coronal', 'ct_sagittal', 'mr_axial', 'mr_coronal', 'mr_sagittal'];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wbplay-bench-figure-'));
  try {
    await writeDemoData(join(dir, 'demo'));
    const example = await readFile(fileURLToPath(new URL('../playbooks/figure.yaml', import.meta.url)), 'utf8');
    const head = example.slice(0, example.indexOf('  - figure:'));
    for (const dpi of [300, 600]) {
      const figurePb = join(dir, `figure-${dpi}.yaml`);
      await writeFile(figurePb, example.replace('dpi: 300', `dpi: ${dpi}`));
      const plan = loadPlaybook(figurePb, { vars: { data: join(dir, 'demo'), out: join(dir, 'out') } });
      const figureStep = plan.cases[0]!.steps.find((s) => s.kind === 'figure')!;
      const geometry = gridGeometry({ ...(figureStep.args as FigureArgs).grid, legendLines: 1 });
      if (isGeometryProblem(geometry)) throw new Error(geometry.problem);
      const panelSide = geometry.panelWidth;
      const shotsPb = join(dir, `shots-${dpi}.yaml`);
      await writeFile(
        shotsPb,
        head +
          CELLS.map(
            (c) =>
              `  - screenshot: { of: mxn/mxn__${c}, save: "\${out}/${c}.png", width: ${panelSide}, height: ${panelSide} }\n`,
          ).join(''),
      );
      const shots = loadPlaybook(shotsPb, { vars: { data: join(dir, 'demo'), out: join(dir, 'shots') } });
      const figureMs: number[] = [];
      const shotMs: number[] = [];
      // Side by side: each round runs both, so the machine's state weighs on them alike.
      for (let i = 0; i < RUNS + 1; i++) {
        const result = await runPlans({
          plans: [plan, shots],
          workbenches: embeddedWorkbenches(1),
          reporter: {},
          outputDir: join(dir, `report-${dpi}-${i}`),
          force: true,
        });
        const cases = await result.cases.all();
        const steps = (c: number): StepResult[] => cases[c]!.steps;
        if (result.status !== 'passed') throw new Error(`the figure run did not pass: ${result.status}`);
        if (i === 0) continue; // warm-up
        figureMs.push(steps(0).find((s) => s.kind === 'figure')!.durationMs);
        shotMs.push(
          steps(1)
            .filter((s) => s.kind === 'screenshot')
            .reduce((sum, s) => sum + s.durationMs, 0),
        );
      }
      const figure = median(figureMs);
      const captures = median(shotMs);
      console.log(
        `183 mm at ${dpi} dpi (${panelSide}x${panelSide} panels): figure ${figure.toFixed(0)} ms, the six captures alone ${captures.toFixed(0)} ms, ratio ${(figure / captures).toFixed(2)}x; composing, rasterising and writing PNG + SVG ${(figure - captures).toFixed(0)} ms`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
