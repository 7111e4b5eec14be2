import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunStartInfo, Reporter } from '../result/reporter.js';
import type { Artefact, CaseInfo, CaseResult, RunResult, StepInfo, StepResult } from '../result/result.js';
import type { AfterStep } from '../run/run-context.js';
import type { CaptureStore, StoredImage } from './capture-store.js';
import { reviewableCheck, type ReviewableCheck } from './golden-review.js';
import { formatSummary } from './report-text.js';
import { captureWindows } from './step-snapshots.js';
import {
  endedStep,
  queuedCases,
  shownPath,
  type UiCase,
  type UiImage,
  type UiProblem,
  type UiState,
  type UiStep,
} from './ui-state.js';

/** A change of the state, as the page receives it. */
export type UiEvent =
  | { type: 'state'; data: UiState }
  | { type: 'head'; data: Omit<UiState, 'cases'> }
  | { type: 'step'; data: { case: string; step: UiStep } }
  | { type: 'case'; data: { case: string; status: UiCase['status']; durationMs?: number } };

/** The images a step shows: what it wrote and, for an image check, the golden. */
const SHOWN: ReadonlySet<Artefact['kind']> = new Set(['screenshot', 'figure', 'golden', 'expected', 'actual', 'diff']);
/** Images marked changed or not against the last run; expected and diff follow from the others. */
const COMPARED: ReadonlySet<Artefact['kind']> = new Set(['screenshot', 'figure', 'golden', 'actual']);
/** How long a step's end waits for the files it writes in the background before its case's end shows them. */
const FRESH_TRIES = 80;
const FRESH_POLL_MS = 25;

/**
 * The live page's view of the runs of a session: a reporter among the run's reporters, which
 * turns the runner's events into the page's state and tells every listener each change. The
 * images of each step are copied into the capture store as soon as they are written, marked
 * new, changed or the same against the last run that made them (by their pixels: the bytes
 * also hold the playbook's hash, which every edit changes), and the failed image checks of
 * the run are the only goldens the page may accept.
 */
export class LiveRun implements Reporter {
  readonly name = 'ui';
  private state: UiState;
  private readonly listeners = new Set<(event: UiEvent) => void>();
  private cases = new Map<string, UiCase>();
  private readonly startedAt = new Map<string, number>();
  private readonly ended = new Set<string>();
  /** Images by what made them (case, kind, file): those of earlier runs, and this run's. */
  private readonly earlier = new Map<string, StoredImage>();
  private readonly current = new Map<string, StoredImage>();
  private checks = new Map<string, ReviewableCheck>();

  constructor(
    private readonly store: CaptureStore,
    workbench: string,
    snapshots = false,
  ) {
    this.state = { run: 0, phase: 'starting', workbench, snapshots, problems: [], notices: [], cases: [] };
  }

  get snapshot(): UiState {
    return this.state;
  }

  get snapshots(): boolean {
    return this.state.snapshots;
  }

  set snapshots(on: boolean) {
    this.state.snapshots = on;
    this.head();
  }

  /** Called with every change; returns how to stop listening. */
  subscribe(listener: (event: UiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The failed image checks of the cases shown, by the name the page uses. */
  reviewable(): ReadonlyMap<string, ReviewableCheck> {
    return this.checks;
  }

  accepted(keys: readonly string[]): void {
    for (const key of keys) {
      const [position, index] = key.split('.');
      const c = this.state.cases[Number(position)];
      const step = c?.steps.find((s) => String(s.index) === index);
      if (!c || !step?.check) continue;
      step.check.accepted = true;
      this.checks.delete(key);
      this.emit({ type: 'step', data: { case: c.key, step } });
    }
  }

  /** A new run starts: this run's images become the earlier ones. */
  begin(run: number): void {
    for (const [id, image] of this.current) this.earlier.set(id, image);
    this.current.clear();
    this.state = { ...this.state, run, phase: 'running', problems: [], notices: [] };
    this.head();
  }

  /** The playbooks did not run: the page shows why instead of the captures, until a run starts. */
  showProblems(problems: readonly UiProblem[]): void {
    this.state = { ...this.state, phase: 'problems', problems: [...problems] };
    delete this.state.status;
    delete this.state.summary;
    this.head();
  }

  onRunStart(info: RunStartInfo): void {
    this.state.cases = queuedCases(info.cases);
    this.cases = new Map(info.cases.map((c, i) => [caseId(c), this.state.cases[i]!]));
    this.ended.clear();
    this.startedAt.clear();
    this.checks = new Map();
    this.emit({ type: 'state', data: this.state });
  }

  onCaseStart(c: CaseInfo): void {
    this.setCase(c, 'running');
  }

  onStepStart(c: CaseInfo, step: StepInfo): void {
    this.startedAt.set(`${caseId(c)}#${step.index}`, Date.now());
    this.updateStep(c, step.index, (s) => ({ ...s, status: 'running' }));
  }

  /** RunOptions.afterStep: each window as the step left it, when the page asked for step snapshots. */
  readonly afterStep: AfterStep = async (c, result, client, signal) => {
    if (!this.state.snapshots) return;
    const shots: UiStep['snapshots'] = [];
    for (const shot of await captureWindows(client, signal)) {
      const image = await this.store.put(shot.bytes);
      if (image) shots.push({ window: shot.window, image });
    }
    this.updateStep(c, result.index, (s) => ({ ...s, snapshots: shots }));
  };

  async onStepEnd(c: CaseInfo, result: StepResult): Promise<void> {
    this.updateStep(c, result.index, (s) => endedStep(s, result));
    if (result.status === 'skipped') return;
    const since = this.startedAt.get(`${caseId(c)}#${result.index}`) ?? 0;
    const images = await this.images(c, result, (path) => this.written(path, since, caseId(c)));
    if (!this.ended.has(caseId(c))) this.updateStep(c, result.index, (s) => ({ ...s, images }));
  }

  async onCaseEnd(result: CaseResult): Promise<void> {
    const id = caseId(result);
    this.ended.add(id);
    const row = this.cases.get(id);
    if (!row) return;
    for (const step of result.steps) {
      const images = await this.images(result, step, async () => true);
      this.updateStep(result, step.index, (s) => {
        const ended = endedStep(s, step);
        // A live result names its golden as the run made it (absolute): the root does not come into it.
        const check = reviewableCheck(result, Number(row.key), step, this.store.outputDir, process.cwd());
        const actual = images.find((i) => i.kind === 'actual');
        if (check && actual && ended.check) {
          // Accepted from the bytes the page shows, whatever a later run writes to the capture's path.
          this.checks.set(check.key, { ...check, actual: this.store.path(actual.image) });
          ended.check = { ...ended.check, key: check.key };
        }
        return { ...ended, images };
      });
    }
    this.setCase(result, result.status, result.durationMs);
  }

  onNotice(message: string): void {
    this.state.notices.push(message);
    this.head();
  }

  async onRunEnd(result: RunResult): Promise<void> {
    this.state = { ...this.state, phase: 'done', status: result.status, summary: formatSummary(result.summary) };
    this.head();
    await this.store.keepOnly(this.inUse()).catch(() => undefined);
  }

  private async images(c: CaseInfo | CaseResult, step: StepResult, written: (path: string) => Promise<boolean>) {
    const out = this.store.outputDir;
    const shown: Array<{ kind: Artefact['kind']; path: string }> = step.artefacts.filter((a) => SHOWN.has(a.kind));
    // A check that passed wrote nothing: its golden is what it matched.
    if (step.kind === 'expect_image' && step.image && !shown.some((a) => a.kind === 'expected' || a.kind === 'golden'))
      shown.push({ kind: 'golden', path: step.image.golden });
    const images: UiImage[] = [];
    for (const a of shown) {
      const path = isAbsolute(a.path) ? a.path : resolve(out, a.path);
      // A figure's PDF and TIFF are written beside its PNG, which shows it.
      if (!/\.(png|jpe?g|svg)$/i.test(path)) continue;
      if ((a.kind === 'screenshot' || a.kind === 'figure') && !(await written(path))) continue;
      const image = await this.store.putFile(path);
      if (!image) continue;
      const entry: UiImage = { kind: a.kind, label: shownPath(path), image };
      if (COMPARED.has(a.kind)) {
        const id = `${caseId(c)}|${a.kind}|${path}`;
        const before = this.earlier.get(id);
        this.current.set(id, image);
        entry.change = before === undefined ? 'new' : before.pixels === image.pixels ? 'same' : 'changed';
        if (before) entry.previous = before;
        const diff = entry.change === 'changed' && before ? await this.store.diff(image, before) : undefined;
        if (diff) entry.diff = diff;
      }
      images.push(entry);
    }
    return images;
  }

  /**
   * Whether a file a step writes in the background now holds this run's bytes: written since
   * the step started. A file left by the last run is older; the case's end settles it.
   */
  private async written(path: string, since: number, id: string): Promise<boolean> {
    for (let i = 0; i < FRESH_TRIES && !this.ended.has(id); i++) {
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs >= since) return true;
      await sleep(FRESH_POLL_MS);
    }
    return false;
  }

  private inUse(): Set<string> {
    const files = new Set<string>([...this.earlier.values(), ...this.current.values()].map((i) => i.file));
    for (const c of this.state.cases)
      for (const s of c.steps) {
        for (const i of s.images) for (const x of [i.image, i.previous, i.diff]) if (x) files.add(x.file);
        for (const shot of s.snapshots) files.add(shot.image.file);
      }
    return files;
  }

  private updateStep(c: CaseInfo | CaseResult, index: number, change: (step: UiStep) => UiStep): void {
    const row = this.cases.get(caseId(c));
    const at = row?.steps.findIndex((s) => s.index === index) ?? -1;
    if (!row || at < 0) return;
    const step = change(row.steps[at]!);
    row.steps[at] = step;
    this.emit({ type: 'step', data: { case: row.key, step } });
  }

  private setCase(c: CaseInfo | CaseResult, status: UiCase['status'], durationMs?: number): void {
    const row = this.cases.get(caseId(c));
    if (!row) return;
    row.status = status;
    if (durationMs !== undefined) row.durationMs = durationMs;
    this.emit({
      type: 'case',
      data: { case: row.key, status, ...(durationMs !== undefined ? { durationMs } : {}) },
    });
  }

  private head(): void {
    const { cases: _cases, ...head } = this.state;
    this.emit({ type: 'head', data: head });
  }

  private emit(event: UiEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** Cases are told apart by playbook and id: two playbooks may each have a case `main`. */
function caseId(c: { playbook: string; id: string }): string {
  return `${c.playbook}\u0000${c.id}`;
}
