import { isAbsolute, relative } from 'node:path';
import type { Artefact, CaseInfo, ErrorInfo, RunStatus, StepInfo, StepResult, Status } from '../result/result.js';
import type { StoredImage } from './capture-store.js';
import { formatImage } from './report-text.js';

/**
 * What the live page shows, as plain data: the server sends it whole when a page connects and
 * then sends each change (a step that starts or ends, a case that ends, the run's head). Every
 * string is set as text by the page's script, never parsed as markup.
 */
export interface UiState {
  /** 1 for the first run of the session; 0 before it. */
  run: number;
  phase: 'starting' | 'running' | 'done' | 'problems';
  /** The verdict and counts of the last run that ended. */
  status?: RunStatus;
  summary?: string;
  /** Where the runs go: a URL without credentials, or the reference workbench's. */
  workbench: string;
  /** Whether each window is captured after each step. */
  snapshots: boolean;
  /** Why the playbooks did not run (playbook errors, a workbench that cannot be reached). */
  problems: UiProblem[];
  notices: string[];
  cases: UiCase[];
}

/** A problem drawn as the terminal draws it: code and message, `--> file:line:col`, the line, a caret, the hint. */
export interface UiProblem {
  code: string;
  message: string;
  /** `file:line:col`, when the problem has a place. */
  at?: string;
  text: string;
}

export type Phase = Status | 'queued' | 'running';

export interface UiCase {
  /** The case's position in the run: how checks are named (`<case>.<step>`). */
  key: string;
  id: string;
  name: string;
  playbook: string;
  status: Phase;
  durationMs?: number;
  steps: UiStep[];
}

export interface UiStep {
  index: number;
  kind: string;
  description: string;
  /** `file:line` of the step. */
  at: string;
  status: Phase;
  durationMs?: number;
  problem?: ErrorInfo;
  skippedReason?: string;
  notices: string[];
  images: UiImage[];
  /** Each window after this step, when step snapshots are on. */
  snapshots: Array<{ window: string; image: StoredImage }>;
  check?: UiCheck;
}

export interface UiImage {
  kind: Artefact['kind'];
  /** The file as the step names it (relative to the output folder where it is inside it). */
  label: string;
  image: StoredImage;
  /** The same image of the last run that made it, and whether its pixels changed since. */
  previous?: StoredImage;
  change?: 'new' | 'changed' | 'same';
  /** The changed pixels against `previous`. */
  diff?: StoredImage;
}

/** An image check: its verdict, and whether its capture may be (or was) accepted as golden. */
export interface UiCheck {
  outcome: string;
  numbers: string;
  golden: string;
  /** Set when the check failed and left a capture: the name the page accepts it by. */
  key?: string;
  accepted?: boolean;
}

/** The cases of a run as they start: every step queued. */
export function queuedCases(cases: readonly CaseInfo[]): UiCase[] {
  return cases.map((c, position) => ({
    key: String(position),
    id: c.id,
    name: c.name,
    playbook: shownPath(c.playbook),
    status: 'queued',
    steps: c.steps.map((s) => queuedStep(s)),
  }));
}

function queuedStep(s: StepInfo): UiStep {
  return {
    index: s.index,
    kind: s.kind,
    description: s.description,
    at: `${s.span.file}:${s.span.line}`,
    status: 'queued',
    notices: [],
    images: [],
    snapshots: [],
  };
}

/** A step's row once it ended; its images and snapshots are added as they are stored. */
export function endedStep(step: UiStep, result: StepResult): UiStep {
  const ended: UiStep = {
    ...step,
    description: result.description,
    status: result.status,
    durationMs: result.durationMs,
    notices: [...result.notices],
  };
  delete ended.problem;
  delete ended.skippedReason;
  if (result.error) ended.problem = result.error;
  if (result.skippedReason !== undefined) ended.skippedReason = result.skippedReason;
  if (result.image)
    ended.check = {
      outcome: result.image.outcome,
      numbers: formatImage(result.image),
      golden: shownPath(result.image.golden),
    };
  return ended;
}

/** A path as a person in the working folder would type it: relative when it is below it. */
export function shownPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}
