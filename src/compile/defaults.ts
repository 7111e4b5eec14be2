import type { YNode } from '../playbook/tree.js';
import { expandNode, type Scope } from './interpolate.js';

/** `defaults:` as a map of maps; anything else was reported by the schema and counts as none. */
export function defaultsOf(
  node: YNode | undefined,
  scope: Scope,
  onProblem: Parameters<typeof expandNode>[2],
): Record<string, Record<string, unknown>> {
  if (node?.type !== 'map') return {};
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of node.entries) {
    const v = expandNode(e.value, scope, onProblem);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out[e.key] = v as Record<string, unknown>;
  }
  return out;
}
