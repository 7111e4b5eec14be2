import { showNode } from './describe.js';
import { object, ref } from './schema-defs.js';
import type { NodeRef, StepDefinition } from './step-definition.js';

export interface ReinitArgs {
  /** Absent: fit every view to all visible data. */
  nodes?: NodeRef[];
}

export const reinit: StepDefinition<'reinit', ReinitArgs> = {
  kind: 'reinit',
  summary: 'Fit the views to some nodes, or to all visible data when no nodes are given.',
  schema: {
    anyOf: [
      { type: 'null' },
      object({
        nodes: {
          description: 'The nodes whose bounds the views are fitted to; default: all.',
          type: 'array',
          items: ref('node'),
          minItems: 1,
        },
      }),
    ],
  },
  bare: true,
  compile(raw, ctx) {
    const r = (raw ?? {}) as { nodes?: string[] };
    if (r.nodes === undefined) return {};
    const nodes = r.nodes.map((n, i) => ctx.node(n, ['nodes', i]) ?? { ref: n });
    return { nodes };
  },
  async run(a, ctx) {
    const uids = a.nodes ? await Promise.all(a.nodes.map((n) => ctx.resolveNode(n))) : undefined;
    await ctx.client.rendering.reinit(uids, { signal: ctx.signal });
    return { status: 'passed', ...(uids ? { resolvedArgs: { nodes: uids.map((uid) => ({ uid })) } } : {}) };
  },
  describe(a) {
    return a.nodes ? `reinit to ${a.nodes.map(showNode).join(', ')}` : 'reinit to all visible data';
  },
};
