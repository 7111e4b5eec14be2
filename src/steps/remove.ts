// Straight from its module: the client's index loads the HTTP stack, which validating never needs.
import { WorkbenchApiError } from '../client/errors.js';
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
  async run(a, ctx) {
    const uid = await ctx.resolveNode(a.node);
    try {
      await ctx.client.nodes.remove(uid, { recursive: true, signal: ctx.signal });
    } catch (err) {
      // A retried remove whose first answer was lost finds the node gone: that is success.
      if (!(ctx.attempt > 1 && err instanceof WorkbenchApiError && err.status === 404)) throw err;
    }
    return { status: 'passed', resolvedArgs: { node: { uid } } };
  },
  describe(a) {
    return `remove ${showNode(a.node)}`;
  },
};
