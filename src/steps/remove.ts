import { showNode } from './describe.js';
import { object, ref } from './schema-defs.js';
import type { NodeRef, StepDefinition } from './step-definition.js';

export interface RemoveArgs {
  node: NodeRef;
}

export const remove: StepDefinition<'remove', RemoveArgs> = {
  kind: 'remove',
  summary: 'Remove a node from the workbench.',
  schema: object({ node: ref('node') }, ['node']),
  compile(raw, ctx) {
    const r = raw as { node: string };
    return { node: ctx.node(r.node, ['node']) ?? { ref: r.node } };
  },
  describe(a) {
    return `remove ${showNode(a.node)}`;
  },
};
