import { PASSED } from './run-context.js';
import type { StepDefinition } from './step-definition.js';

export const UPDATE_WHICH = ['all', '2d', '3d'] as const;

export interface UpdateArgs {
  which: (typeof UPDATE_WHICH)[number];
}

export const update: StepDefinition<'update', UpdateArgs> = {
  kind: 'update',
  summary: 'Redraw the render windows: all (default), 2d or 3d.',
  schema: { anyOf: [{ type: 'null' }, { enum: [...UPDATE_WHICH] }] },
  bare: true,
  compile(raw) {
    return { which: (raw ?? 'all') as UpdateArgs['which'] };
  },
  async run(a, ctx) {
    await ctx.client.rendering.update(a.which, { signal: ctx.signal });
    return PASSED;
  },
  describe(a) {
    return a.which === 'all' ? 'redraw all windows' : `redraw the ${a.which} windows`;
  },
};
