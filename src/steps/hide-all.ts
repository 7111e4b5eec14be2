import { PASSED } from './run-context.js';
import { object } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';

export type HideAllArgs = Record<string, never>;

export const hideAll: StepDefinition<'hide_all', HideAllArgs> = {
  kind: 'hide_all',
  summary: 'Hide every node.',
  schema: { anyOf: [{ type: 'null' }, object({})] },
  bare: true,
  compile() {
    return {};
  },
  async run(_a, ctx) {
    await ctx.client.nodes.hideAll({ signal: ctx.signal });
    return PASSED;
  },
  describe() {
    return 'hide all nodes';
  },
};
