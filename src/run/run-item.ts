import { relative, resolve, sep } from 'node:path';
import { Interner } from '../compile/intern.js';
import { compiledCase, compiledOnDemand } from '../compile/cohort-cases.js';
import type { Plan, PlanCase, PlanStep } from '../compile/plan.js';
import { PlaybookError } from '../diagnostics/diagnostic.js';
import {
  stepResultOf,
  type CaseInfo,
  type CaseResult,
  type ErrorInfo,
  type SourceSpan,
  type StepInfo,
  type StepResult,
} from '../result/result.js';
import { selectShard, type Shard } from './shard.js';

/** One case of one plan: the unit that runs on a workbench. */
export interface RunItem {
  plan: Plan;
  case: PlanCase;
  /** 1-based position among every case of the plans, shard or not. */
  number: number;
  info: CaseInfo;
  /** Cohort studies are resumable; other cases always run. */
  resumable: boolean;
  /** Shard key: the same on every machine (playbook name and case id). */
  key: string;
  /** Manifest key: which playbook file (from the output folder) and which case. */
  resumeKey: string;
}

/**
 * A run of at most this many cases tells its reporters every case's steps when it starts (a
 * task list shows them as rows). A larger cohort's cases are compiled as each runs, so its
 * start lists them without their steps; each case's own events carry them.
 */
export const OUTLINED_CASES = 100;

/** Every case of the plans in order, or those of one shard. */
export function selectItems(
  plans: readonly Plan[],
  shard: Shard | undefined,
  outputDir: string,
  outlineEveryCase = false,
): RunItem[] {
  const all: RunItem[] = [];
  const count = plans.reduce((n, p) => n + p.cases.length, 0);
  // The outline of the steps is the same for most studies of a cohort: one copy serves them all.
  const interner = new Interner(count > 1);
  for (const plan of plans) {
    for (const c of plan.cases) {
      const outlined = outlineEveryCase || count <= OUTLINED_CASES || !compiledOnDemand(c);
      all.push({
        plan,
        case: c,
        number: all.length + 1,
        resumable: plan.foreach !== undefined,
        key: `${plan.name}/${c.id}`,
        resumeKey: `${relative(outputDir, resolve(plan.playbook.path)).split(sep).join('/')}#${c.id}`,
        info: {
          id: c.id,
          name: plan.cases.length === 1 && !plan.foreach ? plan.name : `${plan.name} · ${c.name}`,
          playbook: plan.playbook.path,
          ...(c.study ? { study: c.study } : {}),
          steps: outlined ? interner.value(outline(plannedSteps(c) ?? [])) : [],
        },
      });
    }
  }
  return shard ? selectShard(all, (i) => i.key, shard) : all;
}

/**
 * The item with its case compiled, for as long as it runs: its events carry the case's steps.
 * Throws a PlaybookError when the case no longer compiles.
 */
export function compiledItem(item: RunItem): RunItem {
  if (!compiledOnDemand(item.case)) return item;
  const c = compiledCase(item.case);
  return { ...item, case: c, info: { ...item.info, steps: outline(c.steps) } };
}

function outline(steps: readonly PlanStep[]): StepInfo[] {
  return steps.map((s) => ({ index: s.index, kind: s.kind, description: s.description, span: s.span }));
}

/** The case's steps; none when it no longer compiles (the run says why where it runs it). */
function plannedSteps(c: PlanCase): PlanStep[] | undefined {
  try {
    return c.steps;
  } catch (err) {
    if (err instanceof PlaybookError) return undefined;
    throw err;
  }
}

/** A case that did not run: every step skipped with the reason; an error makes it count as one. */
export function notRun(item: RunItem, reason: string, error?: ErrorInfo): CaseResult {
  const steps: StepResult[] = (plannedSteps(item.case) ?? []).map((s) => ({
    ...stepResultOf(s, 'skipped'),
    skippedReason: error ? `${reason}: ${error.message}` : reason,
  }));
  const first = steps[0];
  if (error && first) {
    first.status = 'error';
    first.error = error;
    delete first.skippedReason;
  }
  const { steps: _infoSteps, ...info } = item.info;
  return { ...info, status: error ? 'error' : 'skipped', durationMs: 0, steps };
}

/**
 * A cohort case that no longer compiles when its turn comes (a data file it reads was removed
 * since the plan was checked): one step in error that says what the compile found, where.
 */
export function notCompiled(item: RunItem, err: PlaybookError): CaseResult {
  const first = err.diagnostics[0];
  const span: SourceSpan = first?.span
    ? { file: first.span.file, line: first.span.line, col: first.span.col }
    : { file: item.plan.playbook.path, line: 1, col: 1 };
  const { steps: _infoSteps, ...info } = item.info;
  return {
    ...info,
    status: 'error',
    durationMs: 0,
    steps: [
      {
        ...stepResultOf({ index: 1, kind: 'compile', description: 'compile the case', span, args: {} }, 'error'),
        error: {
          code: first?.code ?? 'COMPILE_ERROR',
          message: err.message,
          ...(first?.hint ? { hint: first.hint } : {}),
        },
      },
    ],
  };
}
