import type { ContactSheetPlan } from '../steps/post-run/contact-sheet.js';
import type { PostRunPlans } from '../steps/post-run/stages.js';
import type { StepArgs } from '../steps/registry.js';
import type { StepKind } from '../steps/step-definition.js';
import type { VarValue } from './interpolate.js';
import type { ForeachSource, Per, RetrieveRef } from './foreach-source.js';

export type { RetrieveRef };

/**
 * A compiled playbook: plain, JSON-serialisable data that says exactly what a run will do,
 * in order, without anything known only at run time (node UIDs stay symbolic).
 */
export const PLAN_VERSION = 1;

export interface PlanSpan {
  /** The file as shown to the user (relative to the folder the compile ran from, when inside it). */
  file: string;
  line: number;
  col: number;
}

/** Step kinds that remain in a plan: an include is replaced by the steps it includes. */
export type PlanStepKind = Exclude<StepKind, 'include'>;

export type PlanStep = {
  [K in PlanStepKind]: {
    /** 1-based position in the case. */
    index: number;
    kind: K;
    description: string;
    span: PlanSpan;
    /** The include steps this step came through, outermost first. */
    via?: PlanSpan[];
    args: StepArgs<K>;
  };
}[PlanStepKind];

export interface PlanCase {
  /** Stable and unique within the plan: the study name, or `main` without foreach. */
  id: string;
  name: string;
  /** The study's fields, for a foreach case. */
  study?: Record<string, unknown>;
  /** Data files the case reads (absolute), for resume hashes. */
  inputs: string[];
  /** Files the case writes (absolute). */
  outputs: string[];
  /** Series to retrieve from an archive before the case's first step (a `foreach: dicomweb` case). */
  retrieve?: RetrieveRef[];
  steps: PlanStep[];
}

export interface PlanWorkbench {
  /** Absent: none given, or only through unset environment variables; the runner then decides. */
  url?: string;
  /** Never the token itself: the environment variable it comes from, or a marker that the playbook holds one. */
  token?: { env: string } | { redacted: true };
}

/** One figure tiling an image of every case, made once all cases have run. */
export type PlanContactSheet = ContactSheetPlan;

/**
 * A compiled playbook. After its cases come the post-run stages it asks for, each under its
 * key (`contact_sheet`): they run once all the cases have.
 */
export interface Plan extends PostRunPlans {
  version: typeof PLAN_VERSION;
  playbook: { path: string; sha256: string };
  /** Every playbook file compiled (the playbook, then its includes), for resume hashes. */
  sources: { path: string; sha256: string }[];
  name: string;
  tags: string[];
  workbench: PlanWorkbench;
  vars: Record<string, VarValue>;
  /** `per` for a DICOM source: its cases are series or studies. */
  foreach?: { as: string; source: ForeachSource; from?: string; per?: Per; count: number };
  cases: PlanCase[];
}
