import type { WorkbenchClient } from '../client/index.js';
import type { GoldenTemplate } from '../compare/golden-template.js';
import type { FigureProvenance } from '../files/provenance.js';
import type { Artefact, ErrorInfo, ImageAssertion } from '../result/result.js';

/**
 * A node as the plan keeps it. UIDs exist only once the workbench created the node, so an
 * alias stays symbolic and the runner resolves it just before the step runs.
 */
export type NodeRef =
  | { ref: string }
  /** `uid:<UID>` in a playbook: a node that exists in the workbench already. */
  | { uid: string }
  /** `name:<name>` in a playbook: a node the workbench holds under that name. */
  | { name: string };

/**
 * What a step sees while it runs. The runner builds one per attempt; a step module's `run`
 * uses it and nothing else, so steps stay testable with a fake context.
 */
export interface StepRunContext {
  /** The workbench client of the case's worker. */
  readonly client: WorkbenchClient;
  /** 1-based attempt number: from 2 on, a step first checks whether attempt 1 took effect. */
  readonly attempt: number;
  /** The UID behind a node reference: an alias bound earlier in the case, a node name, or a UID. */
  resolveNode(ref: NodeRef): Promise<string>;
  /** Records a node this case created, under its alias when it has one; the case removes it afterwards. */
  bindNode(alias: string | undefined, uid: string): void;
  /**
   * A text unique to this run, case and step (`wbplay-<run>-<case>-<step>`). Every node wbplay
   * creates carries it as the node property `wbplay.marker` (MARKER_PROPERTY), so an attempt
   * whose answer was lost finds the node it made instead of making a second one, and a later
   * run tells wbplay's nodes from a person's.
   */
  readonly marker: string;
  /** The UID of the node an earlier attempt of this step created and got the answer for. */
  earlierNode(): string | undefined;
  /**
   * Writes an output file atomically (creating folders) and records it for reports and resume.
   * The write may finish after the step: a failure then fails the step when the case ends.
   */
  writeOutput(path: string, bytes: Uint8Array, kind: Artefact['kind']): Promise<Artefact>;
  /** Resolves once an output an earlier step of the case is writing has landed (at once for any other file). */
  fileWritten(path: string): Promise<void>;
  /** Folder for the artefacts of failed image assertions (expected/actual/diff). */
  readonly artefactDir: string;
  /** Records an artefact written by someone else (the golden check) for the report. */
  artefact(path: string, kind: Artefact['kind']): Artefact;
  /** How goldens may be written, and where they live when a configuration names a template. */
  readonly golden: { update: 'none' | 'missing' | 'changed' | 'all'; ci: boolean; template?: GoldenTemplate };
  /** What a captured PNG carries so the figure can be traced to what made it. */
  provenance(): Promise<FigureProvenance>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** A line for the person running (a golden was written, a lost answer was recovered). */
  notice(message: string): void;
  /** The DICOMweb archives of the run; absent where the run has none (a plain client run). */
  readonly archives?: StepArchives;
  /** The case's study fields (a cohort case), for steps that act on the case's source data. */
  readonly study?: Readonly<Record<string, unknown>>;
}

/** What steps may ask of the run's DICOMweb archives. */
export interface StepArchives {
  /** A series complete in the local cache, retrieved when it is not: its folder and files. */
  retrieveSeries(url: string, study: string, series: string): Promise<{ dir: string; files: string[] }>;
  /** Stores part-10 instances into a study; those the archive holds already are not sent again. */
  store(
    url: string,
    study: string,
    instances: { sopInstanceUid: string; seriesInstanceUid: string; bytes: Uint8Array }[],
  ): Promise<{ stored: string[]; present: string[] }>;
  /** A study's attributes (patient and study modules) as the archive has them, for objects stored into it. */
  studyAttributes(url: string, study: string): Promise<Record<string, string | number>>;
}

/** How a step ended when it did not throw. Thrown errors are the runner's business (retry, `error`). */
export interface StepOutcome {
  status: 'passed' | 'failed';
  /** The step with its run-time values (UIDs) filled in, for the report. */
  resolvedArgs?: unknown;
  artefacts?: Artefact[];
  image?: ImageAssertion;
  /** Why an assertion failed; assertions are never retried. */
  failure?: ErrorInfo;
}

/** The node property that marks a node as made by wbplay; its value is the step's `marker`. */
export const MARKER_PROPERTY = 'wbplay.marker';

export const PASSED: StepOutcome = Object.freeze({ status: 'passed' }) as StepOutcome;
