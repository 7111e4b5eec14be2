import { postRunStages } from '../steps/post-run/stages.js';
import type { Plan, PlanStep } from './plan.js';

/**
 * The plan as people read it: cases, numbered steps with `file:line`, and the resolved values
 * of each step on the line below. Paths are shown as compiled (absolute).
 */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  lines.push(`Plan: ${plan.name}`);
  lines.push(`  playbook: ${plan.playbook.path}`);
  if (plan.tags.length > 0) lines.push(`  tags: ${plan.tags.join(', ')}`);
  const wb = plan.workbench;
  const token = wb.token
    ? 'env' in wb.token
      ? `, token from $${wb.token.env}`
      : ', token from the playbook (not shown)'
    : '';
  lines.push(`  workbench: ${wb.url ?? 'from --url or WORKBENCH_URL, else the embedded reference workbench'}${token}`);
  const vars = Object.entries(plan.vars);
  if (vars.length > 0) lines.push(`  vars: ${vars.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`);
  if (plan.foreach) {
    const f = plan.foreach;
    lines.push(
      `  foreach: ${f.count} ${f.per === 'series' ? 'series' : f.count === 1 ? 'study' : 'studies'} as \`${f.as}\` from ${f.source}${f.from ? ` ${f.from}` : ''}`,
    );
  }
  for (const c of plan.cases) {
    lines.push('');
    lines.push(`Case ${c.name} (${c.steps.length} step${c.steps.length === 1 ? '' : 's'})`);
    const width = String(c.steps.length).length;
    for (const step of c.steps) {
      const where = `${step.span.file}:${step.span.line}`;
      const via = step.via ? ` (via ${step.via.map((v) => `${v.file}:${v.line}`).join(' > ')})` : '';
      lines.push(`  ${String(step.index).padStart(width)}. ${where}${via}  ${step.description}`);
      lines.push(`  ${' '.repeat(width + 2)}${formatArgs(step)}`);
    }
  }
  for (const stage of postRunStages) {
    const args = plan[stage.key];
    if (args === undefined) continue;
    // Made after the cases, so shown after them.
    lines.push('');
    lines.push(...stage.describe(args));
  }
  return `${lines.join('\n')}\n`;
}

/** Arguments as compact `key=value` pairs; windows and nodes as they are written in playbooks. */
function formatArgs(step: PlanStep): string {
  const args = step.args as Record<string, unknown>;
  return (
    Object.entries(args)
      // A layout read from a file is shown by its file and cells; `--json` has the document.
      .filter(([k]) => !(k === 'document' && args.file !== undefined))
      .map(([k, v]) => `${k}=${show(v)}`)
      .join('  ')
  );
}

function show(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.address === 'string' && typeof o.target === 'string') return o.address;
    if (typeof o.ref === 'string' && Object.keys(o).length === 1) return o.ref;
    if (typeof o.uid === 'string' && Object.keys(o).length === 1) return `uid:${o.uid}`;
    if (typeof o.name === 'string' && Object.keys(o).length === 1) return `name:${o.name}`;
    if (typeof o.kind === 'string' && Object.keys(o).length <= 2) return Object.values(o).map(show).join(' ');
    return `{${Object.entries(o)
      .map(([k, x]) => `${k}: ${show(x)}`)
      .join(', ')}}`;
  }
  return typeof v === 'string' ? v : String(v);
}
