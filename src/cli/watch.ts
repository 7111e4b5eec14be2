import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { Plan } from '../compile/plan.js';
import { decodePng } from '../image/png-decode.js';
import type { RunResult } from '../result/result.js';
import { EXIT, type ExitCode } from './errors.js';

/** What one run of the watch loop tells it. */
export interface RunHooks {
  onPlans(plans: readonly Plan[]): void;
  onResult(result: RunResult, outputDir: string): void;
}

export interface WatchOptions {
  /** One run on `url` (the same workbench every time); hooks report its plans and result. */
  runOnce(url: string, hooks: RunHooks): Promise<ExitCode>;
  /** The workbench to run on: the user's, or a reference workbench started for the session. */
  workbench(): Promise<{ url: string; token?: string; stop(): Promise<void> }>;
  log(line: string): void;
  /** Watched while the playbooks do not compile: the files named on the command line. */
  playbooks: readonly string[];
  debounceMs?: number;
}

/**
 * `wbplay run --watch`, for authoring figures: runs the playbooks, then again whenever a
 * playbook, an included file or a data file it reads changes, on the same workbench, each time
 * from a clean scene (every run on a workbench given by URL first removes what earlier runs
 * left: see run/scene.ts). After each run it says
 * which figures changed. Ctrl-C ends it with the interrupted exit code.
 */
export async function watchRuns(options: WatchOptions): Promise<ExitCode> {
  const workbench = await options.workbench();
  let stopping = false;
  let wake: () => void = () => undefined;
  const onSignal = (): void => {
    stopping = true;
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const figures = new Map<string, string>();
  let watchers: FSWatcher[] = [];
  try {
    for (let run = 1; !stopping; run++) {
      let files: string[] = [];
      let result: RunResult | undefined;
      let outputDir = process.cwd();
      const code = await options.runOnce(workbench.url, {
        onPlans: (plans) => (files = watchedFiles(plans)),
        onResult: (r, out) => {
          result = r;
          outputDir = out;
        },
      });
      if (code === EXIT.interrupted || code === EXIT.terminated || stopping) break;
      if (result) options.log(await changedFigures(result, outputDir, figures, run === 1));
      if (files.length === 0) files = [...options.playbooks];
      // Without plans (a playbook that did not compile) the playbooks named on the line are watched.
      const changed = new Promise<void>((resolve) => (wake = resolve));
      watchers = watchFiles(files, options.debounceMs ?? 250, () => wake());
      options.log(`watching ${files.length} file${files.length === 1 ? '' : 's'} for changes (Ctrl-C to stop)`);
      await changed;
      for (const w of watchers) w.close();
      watchers = [];
    }
  } finally {
    for (const w of watchers) w.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await workbench.stop();
  }
  return EXIT.interrupted;
}

/** Playbooks, their includes and the data files of every case. */
export function watchedFiles(plans: readonly Plan[]): string[] {
  const files = new Set<string>();
  for (const plan of plans) {
    for (const s of plan.sources) files.add(s.path);
    for (const c of plan.cases) for (const input of c.inputs) files.add(input);
  }
  return [...files].sort();
}

export function watchFiles(files: readonly string[], debounceMs: number, changed: () => void): FSWatcher[] {
  let timer: NodeJS.Timeout | undefined;
  const fire = (): void => {
    clearTimeout(timer);
    // Editors write a file in several steps (truncate, write, rename): one change is one run.
    timer = setTimeout(changed, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  for (const file of files) {
    try {
      watchers.push(watch(file, { persistent: true }, fire));
    } catch {
      // A file that is not there yet (a data file to come) cannot be watched; the others are.
    }
  }
  return watchers;
}

/** The nodes a run loaded, which the next run removes first. */
/**
 * Which screenshots and figures differ from the last run's, by their pixels: the bytes also
 * hold provenance (the playbook's hash), which changes with every edit.
 */
async function changedFigures(
  result: RunResult,
  outputDir: string,
  known: Map<string, string>,
  first: boolean,
): Promise<string> {
  const changed: string[] = [];
  for await (const c of result.cases) {
    for (const s of c.steps) {
      for (const a of s.artefacts) {
        if (a.kind !== 'screenshot' && a.kind !== 'figure') continue;
        const path = resolve(outputDir, a.path);
        const bytes = await readFile(path).catch(() => undefined);
        if (!bytes) continue;
        const pixels = await decodePng(bytes, path).then(
          (image) => image.data,
          () => bytes,
        );
        const sha = createHash('sha256').update(pixels).digest('hex');
        if (known.get(path) !== sha) changed.push(path);
        known.set(path, sha);
      }
    }
  }
  if (first) return `${known.size} figure${known.size === 1 ? '' : 's'} written`;
  return changed.length > 0
    ? `figures changed: ${changed.map((p) => relative(process.cwd(), p)).join(', ')}`
    : 'no figure changed';
}
