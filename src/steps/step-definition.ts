import type { DiagnosticCode } from '../diagnostics/diagnostic.js';
import type { NodeRef, StepOutcome, StepRunContext } from './run-context.js';

export type { NodeRef };
import type { WindowAddress, WindowTarget } from './window-address.js';

/** Every step kind, in the order the documentation and the schema list them. */
export const STEP_KINDS = [
  'load',
  'set',
  'hide_all',
  'remove',
  'reinit',
  'update',
  'position',
  'time',
  'slice',
  'camera',
  'layout',
  'window_node',
  'screenshot',
  'figure',
  'store',
  'expect_image',
  'expect_state',
  'wait',
  'include',
] as const;

export type StepKind = (typeof STEP_KINDS)[number];

/** A JSON Schema (2020-12) object. */
export type JsonSchema = { [key: string]: unknown };

/** Where inside the step's value: `['color', 1]` is the second number of `color`. */
export type ValuePath = readonly (string | number)[];

/** What a step module sees while it compiles one step of one case. */
export interface StepCompileContext {
  /** The playbook's `defaults` for this step kind (already interpolated). */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** Whether referenced input files must exist now (`--check-files`). */
  readonly checkFiles: boolean;
  /** Reports a problem with the value at `path`. */
  error(code: DiagnosticCode, path: ValuePath, message: string, hint?: string): void;
  /** Reports a problem with the key that names the value at `path` (e.g. a field not allowed here). */
  keyError(code: DiagnosticCode, path: ValuePath, message: string, hint?: string): void;
  /** An input file: absolute, resolved against the playbook's folder; must exist with `--check-files`. */
  inputFile(value: string, path: ValuePath): string;
  /** A path resolved against the playbook's folder, with no check (e.g. a golden written on first run). */
  resolvePath(value: string): string;
  /** An output file: absolute; recorded so two writers of one file are caught. */
  outputFile(value: string, path: ValuePath): string;
  /** A window address checked against the targets this step accepts. */
  window(value: string, path: ValuePath, accept: readonly WindowTarget[]): WindowAddress | undefined;
  /** A node reference, which must name a node an earlier step defined (or be `uid:`/`name:`). */
  node(value: string, path: ValuePath): NodeRef | undefined;
  /** The aliases earlier steps of this case defined, in the order they did. */
  knownAliases(): readonly string[];
  /** Makes an alias and/or a node name known to later steps. */
  defineNode(alias: string | undefined, name: string | undefined): void;
  /** The MxN cells of the last layout step, when it is known at compile time. */
  setLayoutCells(cells: readonly string[] | undefined): void;
  /** The fields of the case's study (a cohort case), for a step that acts on its source data. */
  readonly study?: Readonly<Record<string, unknown>>;
  /** A cohort case whose study is not known yet (its source cannot be read now): `study` is absent. */
  readonly studyUnknown?: boolean;
  /** The playbook file's name, without its folder: what derived identifiers may depend on. */
  readonly playbook: string;
}

/**
 * One step kind: the schema of its value, how it compiles into the plan, how it reads there,
 * and how it runs against a workbench.
 */
export interface StepDefinition<K extends StepKind, Args> {
  kind: K;
  /** One line for `wbplay schema` descriptions and editor tooltips. */
  summary: string;
  /** JSON Schema of the step's value; may use `#/$defs/...` of `schema-defs.ts`. */
  schema: JsonSchema;
  /** Whether the step may be written as a bare word (`- hide_all`). */
  bare?: boolean;
  /**
   * A check whose failure is recorded and the case goes on (an error still ends it), so one run
   * shows every failing image of a case.
   */
  soft?: boolean;
  /**
   * Turns the step's value (interpolated, schema-valid) into its plan arguments. Problems are
   * reported through `ctx`; a step that reported any is left out of the plan.
   */
  compile(raw: unknown, ctx: StepCompileContext): Args;
  /** A short human description for the plan and the reports. */
  describe(args: Args): string;
  /**
   * Runs the compiled step. Workbench and file errors are thrown (the runner classifies and
   * retries them); an assertion that ran and did not hold returns `failed`.
   */
  run(args: Args, ctx: StepRunContext): Promise<StepOutcome>;
}
