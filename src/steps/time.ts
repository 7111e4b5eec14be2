import { PASSED } from './run-context.js';
import { object } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';

export type TimeArgs = { ms: number } | { step: number };

export const time: StepDefinition<'time', TimeArgs> = {
  kind: 'time',
  summary: 'Select a time point, by milliseconds (ms) or by zero-based step.',
  schema: object(
    {
      ms: { description: 'Time point in milliseconds.', type: 'number' },
      step: { description: 'Zero-based time step.', type: 'integer', minimum: 0 },
    },
    [],
    { minProperties: 1, maxProperties: 1 },
  ),
  compile(raw) {
    const r = raw as { ms?: number; step?: number };
    return r.ms !== undefined ? { ms: r.ms } : { step: r.step ?? 0 };
  },
  async run(a, ctx) {
    await ctx.client.rendering.setTime('ms' in a ? { timepoint_ms: a.ms } : { timestep: a.step }, {
      signal: ctx.signal,
    });
    return PASSED;
  },
  describe(a) {
    return 'ms' in a ? `select time ${a.ms} ms` : `select time step ${a.step}`;
  },
};
