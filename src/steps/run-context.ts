import type { WorkbenchClient } from '../client/index.js';
import type { Artefact, ErrorInfo, ImageAssertion } from '../run/result.js';

/**
 * What a step sees while it runs. The runner builds one per case; a step module's `run`
 * uses it and nothing else, so steps stay testable with a fake context.
 */
export interface StepRunContext {
  /** The workbench client of the case's worker. */
  readonly client: WorkbenchClient;
  /** 1-based attempt number: from 2 on, a step first checks whether attempt 1 took effect. */
  readonly attempt: number;
  /** Resolves a node reference (an alias from `load … as:`, a node name, or a UID) to a UID. */
  resolveNode(ref: string): Promise<string>;
  /** Records the UID of a node this case created under `alias`. */
  bindNode(alias: string | undefined, uid: string): void;
  /** A marker unique to this case and step, set on nodes it creates (see `load`). */
  marker(): string;
  /** Writes an output file atomically and records it for reports and resume. */
  writeOutput(path: string, bytes: Uint8Array, kind: Artefact['kind']): Promise<void>;
  /** Folder for artefacts of failed assertions (expected/actual/diff). */
  readonly artefactDir: string;
  readonly golden: { update: 'none' | 'missing' | 'changed' | 'all'; ci: boolean };
  /** Text chunks written into every captured PNG so a figure can be traced to what made it. */
  provenance(step: number): Record<string, string>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  notice(message: string): void;
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
