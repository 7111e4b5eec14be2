import type { DiagnosticCode } from '../../diagnostics/diagnostic.js';
import type { YNode, YScalar } from '../../playbook/tree.js';
import type { Artefact, CaseSummary } from '../../result/result.js';
import type { JsonSchema, ValuePath } from '../step-definition.js';

/** A compiled case as a post-run stage sees it. */
export interface StageCase {
  id: string;
  name: string;
  /** The study's fields; absent without `foreach`, or while the studies are not known. */
  study?: Record<string, unknown>;
  /** Files the case writes (absolute). */
  outputs: readonly string[];
}

/** What a post-run stage sees while it compiles its block of a playbook. */
export interface PostRunCompileContext {
  /** The stage's value, in any shape: one its schema rejects was reported already. */
  readonly value: YNode;
  /** The name of the study variable of the playbook's `foreach`; undefined without one. */
  readonly studyVariable: string | undefined;
  /** Every case of the playbook, compiled, in order. */
  readonly cases: readonly StageCase[];
  /** Reports a problem with the value at `path` inside the stage's value, or with its key when `onKey`. */
  error(code: DiagnosticCode, path: ValuePath, message: string, hint?: string, onKey?: boolean): void;
  /** Reports a problem with the stage's key itself (the stage does not belong in this playbook). */
  keyError(code: DiagnosticCode, message: string, hint?: string): void;
  /** Reports a problem with `length` characters from `offset` of the text of `node`. */
  textError(code: DiagnosticCode, node: YScalar, offset: number, length: number, message: string, hint?: string): void;
  /**
   * The text of `node` with the playbook's variables filled in, and with those of `study`'s
   * case when given; undefined when a problem was reported.
   */
  expand(node: YScalar, study?: StageCase): string | undefined;
  /** A path resolved against the playbook's folder. */
  resolvePath(value: string): string;
  /** An absolute path as messages show it. */
  displayPath(path: string): string;
}

/** What a post-run stage sees once the cases of a run have ended. */
export interface PostRunContext {
  /** The playbook the stage belongs to, for its figures' provenance. */
  playbook: { path: string; sha256: string };
  /** The summaries of this run's cases of the playbook, in plan order (a shard runs some of them). */
  cases: readonly CaseSummary[];
  /** Reports and figure paths are relative to it. */
  outputDir: string;
  notice(message: string): void;
}

/** One shard's figures as merge-reports reads them, and how its paths move to the merged folder. */
export interface ShardFigures {
  figures: readonly Artefact[];
  relocate(path: string): string;
}

/**
 * Something a playbook asks for at its top level that runs once after all its cases: a figure
 * made of the cases' outputs, such as a contact sheet of a cohort. Like a step kind, it owns
 * its schema, how it compiles into the plan, how the plan shows it and how it runs; and, as
 * sharded runs make figures of part of the cases, how the shards' figures become one.
 */
export interface PostRunStage<K extends string, Args> {
  /** The playbook's top-level key, and the plan's field. */
  key: K;
  /** JSON Schema of the value under the key; may use `#/$defs/...` of `schema-defs.ts`. */
  schema: JsonSchema;
  /** The plan's arguments, or undefined when the block compiles to nothing (problems go to `ctx`). */
  compile(ctx: PostRunCompileContext): Args | undefined;
  /** Lines for `wbplay plan`, shown after the cases. */
  describe(args: Args): string[];
  /** Makes the stage's figures and says where they are. Any problem is a notice: it never loses the run. */
  run(args: Args, ctx: PostRunContext): Promise<Artefact[]>;
  /** Whether a figure in a report is one of this stage's. */
  owns(figure: Artefact): boolean;
  /** This stage's figures of every shard as the figures of the whole run (no file is touched). */
  merge(shards: readonly ShardFigures[], cases: readonly CaseSummary[]): Artefact[];
  /** Draws a merged figure again, from the files the shards wrote, into the merged folder. */
  redraw(figure: Artefact, cases: readonly CaseSummary[], outputDir: string): Promise<void>;
}
