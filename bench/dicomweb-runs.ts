// How the dicomweb benchmark runs each side: `wbplay run` as a process of its own (wall time,
// peak RSS, its report read back), and the library's Archive against an Orthanc of the harness.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Archive } from '../src/dicomweb/index.js';
import type { ArchiveRequest } from '../src/dicomweb/types.js';
import type { Orthanc } from '../test/helpers/orthanc.js';
import { PACKAGE_CLI } from './built.js';

const GNU_TIME = '/usr/bin/time';
/** GNU time reports the kernel's peak of the process it waits for; else VmHWM is sampled here. */
const gnuTime = existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true']).status === 0;
export const PEAK_SOURCE = gnuTime
  ? "GNU time's maximum resident set size of the process"
  : 'VmHWM of /proc/PID/status, sampled every 100 ms (GNU time is not installed)';

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
export const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
/** The one-minute load average, for the lines that say how busy the machine was. */
export const loadNow = (): string => loadavg()[0]!.toFixed(1);

export interface Timed {
  ms: number;
  peakMb: number;
  stdout: string;
}

/** A command in `cwd`, timed from spawn to exit; a failure throws with its output's tail. */
export async function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Timed> {
  const peakFile = join(cwd, '.peak');
  const argv = gnuTime ? [GNU_TIME, '-f', '%M', '-o', peakFile, command, ...args] : [command, ...args];
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let sampled = 0;
  const sampler = gnuTime
    ? undefined
    : setInterval(() => {
        try {
          const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
          sampled = Math.max(sampled, Number(kb ?? 0));
        } catch {
          // ended between two samples
        }
      }, 100);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const ms = performance.now() - t0;
  if (sampler) clearInterval(sampler);
  if (code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${(stdout + stderr).slice(-1500)}`);
  const kb = gnuTime ? Number((await readFile(peakFile, 'utf8')).trim().split('\n').pop()) : sampled;
  return { ms, peakMb: (kb * 1024) / 1e6, stdout };
}

export interface RunFigures extends Timed {
  /** The workbench's steps (their durations summed), and the load steps alone. */
  stepsMs: number;
  loadMs: number;
  /** How each load reached the workbench (file-reference, …), as the report says. */
  sent: string[];
}

/** `wbplay run` of `playbook` in `dir` into a fresh `out/` and an empty `cache/`; every case must pass. */
export async function wbplayRun(
  dir: string,
  playbook: string,
  cases: number,
  env: NodeJS.ProcessEnv,
): Promise<RunFigures> {
  await rm(join(dir, 'cache'), { recursive: true, force: true });
  await rm(join(dir, 'out'), { recursive: true, force: true });
  const args = [PACKAGE_CLI, 'run', playbook, '--out', 'out', '--workers', '1', '--reporter', 'line', '--force'];
  const run = await timed(process.execPath, args, dir, env);
  const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8')) as {
    summary: { passed: number };
    cases: { steps: { kind: string; durationMs: number; resolvedArgs?: { sent?: string } }[] }[];
  };
  if (report.summary.passed !== cases)
    throw new Error(`${playbook}: ${report.summary.passed} of ${cases} cases passed:\n${run.stdout.slice(-1500)}`);
  const steps = report.cases.flatMap((c) => c.steps);
  const loads = steps.filter((s) => s.kind === 'load');
  return {
    ...run,
    stepsMs: sum(steps.map((s) => s.durationMs)),
    loadMs: sum(loads.map((s) => s.durationMs)),
    sent: [...new Set(loads.map((s) => s.resolvedArgs?.sent ?? '?'))],
  };
}

/** A folder holding a playbook and a configuration whose cache is the folder's own `cache/`. */
export async function runFolder(parent: string, name: string, playbook: string, config = ''): Promise<string> {
  const dir = join(parent, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'wbplay.config.yaml'), `cache: ./cache\n${config}`);
  await writeFile(join(dir, 'playbook.yaml'), playbook);
  return dir;
}

/** A playbook taking its cases from `source` (the lines under `foreach:`). */
export function playbook(source: string, steps: string[]): string {
  return ['version: 1', 'name: DICOMweb bench', 'foreach:', ...source.split('\n').map((l) => `  ${l}`), 'steps:']
    .concat(steps.map((s) => `  - ${s}`))
    .join('\n')
    .concat('\n');
}

/** The library's client of the harness's Orthanc, each request recorded when asked. */
export function archiveOf(orthanc: Orthanc, onRequest?: (r: ArchiveRequest) => void): Archive {
  return new Archive({
    url: orthanc.dicomweb,
    credentials: { kind: 'basic', user: orthanc.user, password: orthanc.password },
    ...(onRequest ? { onRequest } : {}),
  });
}

/** The Authorization header of the plain baselines, the login wbplay sends. */
export function basicAuth(orthanc: Orthanc): string {
  return `Basic ${Buffer.from(`${orthanc.user}:${orthanc.password}`).toString('base64')}`;
}

/** The environment of a `wbplay run`: the login reaches it as users give it, never on the command line. */
export function credentials(orthanc: Orthanc): NodeJS.ProcessEnv {
  return { ...process.env, DICOMWEB_USER: orthanc.user, DICOMWEB_PASSWORD: orthanc.password };
}

/** Pushes files through the harness (4 uploads at a time) and says how long it took. */
export async function pushed(orthanc: Orthanc, files: string[], what: string): Promise<void> {
  const t0 = performance.now();
  await orthanc.push(files);
  const s = (performance.now() - t0) / 1000;
  console.log(`pushed ${what} (${files.length} files) into Orthanc in ${s.toFixed(1)} s, 4 uploads at a time`);
}
