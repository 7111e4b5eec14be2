export { compilePlaybook, loadPlaybook, type CompileOptions, type CompileResult } from './compiler.js';
export type { Plan, PlanCase, PlanContactSheet, PlanStep, PlanSpan, PlanWorkbench, PlanStepKind } from './plan.js';
export { PLAN_VERSION } from './plan.js';
export { formatPlan } from './plan-text.js';
export { parseVarAssignments } from './var-args.js';
