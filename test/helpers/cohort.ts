// Cohort fixtures for the runner tests: demo studies, a cohort playbook over them, the CLI as a
// child process, and PNG pixels to compare (the files carry provenance text that differs per run).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadPlaybook, type Plan } from '../../src/compile/index.js';
import { decodePng } from '../../src/image/png-decode.js';
import type { RetryPolicy } from '../../src/run/retry.js';
import { writeDemoData, type StudyRow } from '../../src/sim/demo-data.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src', 'cli', 'main.ts');
// The TypeScript loader by its own path: the CLI runs in a temporary folder.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Transient errors are retried, but quickly: a test waits for every retry. */
export const FAST_RETRY: RetryPolicy = { retries: 2, minDelayMs: 10, maxDelayMs: 20, factor: 1 };

/** The screenshots each study writes, under `${out}/<study>/`. */
export const SHOTS = ['axial.png', 'sagittal.png', '3d.png'] as const;

export const PLAYBOOK_NAME = 'Cohort test';

/**
 * The steps of playbooks/cohort.yaml (CT, tumour label, crosshair on the tumour, a fixed 3D
 * camera) with fewer screenshots, the 3D one of the tumour alone; `waitMs` slows every study down for the interruption tests.
 */
export function cohortPlaybook(waitMs?: number): string {
  return [
    'version: 1',
    `name: ${PLAYBOOK_NAME}`,
    'vars:',
    '  out: out',
    'foreach:',
    '  csv: data/studies.csv',
    'steps:',
    '  - load: { file: "${study.path}/ct.nrrd", as: ct }',
    '  - load: { file: "${study.path}/tumour-label.nrrd", as: tumour, parent: ct, opacity: 0.6 }',
    '  - reinit: { nodes: [ct] }',
    '  - position: ["${study.tumour_x}", "${study.tumour_y}", "${study.tumour_z}"]',
    '  - camera: { window: stdmulti/3d, standard_view: anterior }',
    ...(waitMs !== undefined ? [`  - wait: { ms: ${waitMs} }`] : []),
    '  - screenshot: { of: stdmulti/axial, save: "${out}/${study.name}/axial.png" }',
    '  - screenshot: { of: stdmulti/sagittal, save: "${out}/${study.name}/sagittal.png" }',
    // The tumour alone in 3D: with the CT hidden, anything another study left would show.
    '  - set: { node: ct, visible: false }',
    '  - screenshot: { of: stdmulti/3d, save: "${out}/${study.name}/3d.png" }',
    '',
  ].join('\n');
}

export interface Cohort {
  dir: string;
  /** The demo studies, in `dir/data`. */
  data: string;
  playbook: string;
  studies: StudyRow[];
}

/** Writes `count` demo studies and the cohort playbook into `dir`. */
export async function makeCohort(dir: string, count: number, waitMs?: number): Promise<Cohort> {
  const data = join(dir, 'data');
  const { studies } = await writeDemoData(data, { cohort: count });
  const playbook = join(dir, 'cohort.yaml');
  await writeFile(playbook, cohortPlaybook(waitMs));
  return { dir, data, playbook, studies };
}

/** The cohort's plan with its screenshots under `out`. */
export function cohortPlan(cohort: Cohort, out: string): Plan {
  return loadPlaybook(cohort.playbook, { vars: { out }, env: {}, displayRoot: cohort.dir });
}

/** The playbook with only the study `id`: what that study gives when it runs alone. */
export function onlyStudy(plan: Plan, id: string): Plan {
  return { ...plan, cases: plan.cases.filter((c) => c.id === id) };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Env of a CLI child: no CI, no workbench URL from the parent, nothing else that steers a run. */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...env };
}

/** How this checkout's CLI is started, as a program and its first arguments (tsx by its own path). */
export const WBPLAY_ARGV: readonly string[] = [process.execPath, '--import', tsx, main];

/** `wbplay <args>` as a user runs it, in `cwd`. */
export function wbplay(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, main, ...args],
      { cwd, env: childEnv(env), maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const e = err as (Error & { code?: number | string; signal?: NodeJS.Signals | null }) | null;
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          signal: e?.signal ?? null,
          stdout,
          stderr,
        });
      },
    );
  });
}

/** `wbplay <args>` started in the background, for tests that kill it. */
export function spawnWbplay(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', tsx, main, ...args], {
    cwd,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The decoded pixels of a PNG file, as one buffer (RGBA rows) plus its size. */
export async function pixels(path: string): Promise<{ width: number; height: number; data: Buffer }> {
  const image = await decodePng(await readFile(path), path);
  return {
    width: image.width,
    height: image.height,
    data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength),
  };
}

/** How many pixels differ between two images of the same size (all of them when sizes differ). */
export function differingPixels(
  a: { width: number; height: number; data: Buffer },
  b: { width: number; height: number; data: Buffer },
): number {
  if (a.width !== b.width || a.height !== b.height) return Math.max(a.width * a.height, b.width * b.height);
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data.readUInt32LE(i) !== b.data.readUInt32LE(i)) n++;
  }
  return n;
}
