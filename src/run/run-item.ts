import { relative, resolve, sep } from 'node:path';
import { Interner } from '../compile/intern.js';
import type { Plan, PlanCase } from '../compile/plan.js';
import { stepResultOf, type CaseInfo, type CaseResult, type ErrorInfo, type StepResult } from '../result/result.js';
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

/** Every case of the plans in order, or those of one shard. */
export function selectItems(plans: readonly Plan[], shard: Shard | undefined, outputDir: string): RunItem[] {
  const all: RunItem[] = [];
  // The outline of the steps is the same for most studies of a cohort: one copy serves them all.
  const interner = new Interner(plans.reduce((n, p) => n + p.cases.length, 0) > 1);
  for (const plan of plans) {
    for (const c of plan.cases) {
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
          steps: interner.value(
            c.steps.map((s) => ({ index: s.index, kind: s.kind, description: s.description, span: s.span })),
          ),
        },
      });
    }
  }
  return shard ? selectShard(all, (i) => i.key, shard) : all;
}

/** A case that did not run: every step skipped with the reason; an error makes it count as one. */
export function notRun(item: RunItem, reason: string, error?: ErrorInfo): CaseResult {
  const steps: StepResult[] = item.case.steps.map((s) => ({
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
