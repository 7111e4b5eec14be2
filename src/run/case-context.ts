import { dirname } from 'node:path';
import { syncFolders, writeFileAtomic } from '../files/atomic-write.js';
import type { FigureProvenance } from '../files/provenance.js';
import type { StepArchives, StepRunContext } from '../steps/run-context.js';
import type { NodeRef } from '../steps/step-definition.js';
import type { FileHasher } from '../files/file-hash.js';
import { artefactAt, type Artefact, type ErrorInfo } from '../result/result.js';
import { classify } from './classify.js';
import type { WorkbenchSlot } from './workbenches.js';

export interface CaseSetup {
  /** Unique per run: node markers carry it, so two runs on one workbench never mix up nodes. */
  runId: string;
  /** Position of the case in the run; part of node markers. */
  caseNumber: number;
  slot: WorkbenchSlot;
  outputDir: string;
  artefactDir: string;
  golden: StepRunContext['golden'];
  timeoutMs: number;
  hasher: FileHasher;
  /** Provenance of the case without the step (filled per capture). */
  provenance(): Promise<Omit<FigureProvenance, 'step'>>;
  archives?: StepArchives;
  study?: Readonly<Record<string, unknown>>;
}

/** Error thrown when a step names a node the case cannot find. */
export class NodeNotFoundError extends Error {
  readonly code = 'NODE_NOT_FOUND';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'NodeNotFoundError';
  }
}

/**
 * What one case remembers while it runs: the UIDs behind its aliases, the nodes it created
 * (removed before the next case on the same workbench) and the files it wrote (for resume).
 */
export class CaseState {
  readonly aliases = new Map<string, string>();
  readonly created: string[] = [];
  /** Output path → SHA-256 of what was written. */
  readonly outputs = new Map<string, string>();
  private readonly byMarker = new Map<string, string>();
  /** Each step's output writes, by step index: each settles to its failure, if it failed. */
  private readonly writes = new Map<number, Array<Promise<ErrorInfo | undefined>>>();
  /** Folders the case wrote into, flushed once at its end so its renames survive a power loss. */
  private readonly folders = new Set<string>();

  constructor(private readonly setup: CaseSetup) {}

  context(
    step: { index: number; description: string },
    attempt: number,
    signal: AbortSignal,
    notice: (message: string) => void,
  ): StepRunContext {
    return new AttemptContext(this, this.setup, step, attempt, signal, notice);
  }

  /** Records a node the case created; `marker` names the step that created it. */
  bind(marker: string, alias: string | undefined, uid: string): void {
    if (alias !== undefined) this.aliases.set(alias, uid);
    if (!this.created.includes(uid)) this.created.push(uid);
    this.byMarker.set(marker, uid);
  }

  createdBy(marker: string): string | undefined {
    return this.byMarker.get(marker);
  }

  /**
   * Starts writing an output and returns at once: the write (flushed to disk before its rename)
   * overlaps the next steps' workbench calls. The step counts as passed only once `written`
   * says its files are on disk.
   */
  write(path: string, bytes: Uint8Array, kind: Artefact['kind'], step: number): Artefact {
    const done = (async () => {
      await writeFileAtomic(path, bytes);
      this.outputs.set(path, await this.setup.hasher.remember(path, bytes));
    })();
    this.pending.set(path, done);
    this.folders.add(dirname(path));
    const mine = this.writes.get(step) ?? [];
    mine.push(
      done.then(
        () => undefined,
        (err: unknown) => classify(err).info,
      ),
    );
    this.writes.set(step, mine);
    return this.artefact(path, kind);
  }

  /**
   * Once every file of `step` is written: why one was not, or undefined when all are on disk.
   * No promise for a step that wrote nothing.
   */
  /** Writes of the case still under way, by file: a later step that reads a file waits for it. */
  readonly pending = new Map<string, Promise<void>>();

  written(step: number): Promise<ErrorInfo | undefined> | undefined {
    const mine = this.writes.get(step);
    if (!mine) return undefined;
    this.writes.delete(step);
    return Promise.all(mine).then((failures) => failures.find((failure) => failure !== undefined));
  }

  /**
   * After the last step's files are written: the folders they went into are flushed together,
   * so every file the journal will name is on disk under its name.
   */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()].flat());
    await syncFolders(this.folders);
  }

  artefact(path: string, kind: Artefact['kind']): Artefact {
    return artefactAt(this.setup.outputDir, path, kind);
  }

  async resolve(ref: NodeRef, signal: AbortSignal): Promise<string> {
    if ('uid' in ref) return ref.uid;
    if ('ref' in ref) {
      const bound = this.aliases.get(ref.ref);
      if (bound !== undefined) return bound;
    }
    // A node name (`name:` or a name given at load): the workbench is asked.
    const name = 'ref' in ref ? ref.ref : ref.name;
    const nodes = (await this.setup.slot.client.nodes.list({ hierarchy: 'all' }, { signal })).filter(
      (n) => n.name === name,
    );
    const [only, second] = nodes;
    if (only === undefined)
      throw new NodeNotFoundError(
        `no node named \`${name}\` in the workbench`,
        "load it first, or check the name in the workbench's data manager",
      );
    if (second !== undefined) {
      throw new NodeNotFoundError(
        `${nodes.length} nodes are named \`${name}\` (${nodes.map((n) => n.uid).join(', ')})`,
        'refer to the node by the alias of its load step (`as:`) or by `uid:`',
      );
    }
    return only.uid;
  }
}

/**
 * The context of one attempt of one step. A class rather than an object of closures: a run
 * of many cheap steps makes one per step.
 */
class AttemptContext implements StepRunContext {
  readonly client: StepRunContext['client'];
  readonly marker: string;
  readonly timeoutMs: number;
  readonly artefactDir: string;
  readonly golden: StepRunContext['golden'];
  readonly archives: StepArchives | undefined;
  readonly study: Readonly<Record<string, unknown>> | undefined;

  constructor(
    private readonly state: CaseState,
    private readonly setup: CaseSetup,
    private readonly step: { index: number; description: string },
    readonly attempt: number,
    readonly signal: AbortSignal,
    readonly notice: (message: string) => void,
  ) {
    this.client = setup.slot.client;
    this.marker = `wbplay-${setup.runId}-${setup.caseNumber}-${step.index}`;
    this.timeoutMs = setup.timeoutMs;
    this.artefactDir = setup.artefactDir;
    this.golden = setup.golden;
    this.archives = setup.archives;
    this.study = setup.study;
  }

  resolveNode(ref: NodeRef): Promise<string> {
    return this.state.resolve(ref, this.signal);
  }

  bindNode(alias: string | undefined, uid: string): void {
    this.state.bind(this.marker, alias, uid);
  }

  earlierNode(): string | undefined {
    return this.state.createdBy(this.marker);
  }

  writeOutput(path: string, bytes: Uint8Array, kind: Artefact['kind']): Promise<Artefact> {
    return Promise.resolve(this.state.write(path, bytes, kind, this.step.index));
  }

  artefact(path: string, kind: Artefact['kind']): Artefact {
    return this.state.artefact(path, kind);
  }

  async fileWritten(path: string): Promise<void> {
    await this.state.pending.get(path);
  }

  async provenance(): Promise<FigureProvenance> {
    return { ...(await this.setup.provenance()), step: `${this.step.index}: ${this.step.description}` };
  }
}
