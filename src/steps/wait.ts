import { setTimeout } from 'node:timers/promises';
import { PASSED } from './run-context.js';
import { object } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';

export interface WaitArgs {
  ms: number;
}

export const wait: StepDefinition<'wait', WaitArgs> = {
  kind: 'wait',
  summary: 'Pause for a number of milliseconds.',
  schema: object(
    {
      ms: {
        description: 'How long to wait, in milliseconds (at most 600000).',
        type: 'number',
        minimum: 0,
        maximum: 600000,
        examples: [500],
      },
    },
    ['ms'],
  ),
  compile(raw) {
    return { ms: (raw as WaitArgs).ms };
  },
  async run(a, ctx) {
    await setTimeout(a.ms, undefined, { signal: ctx.signal });
    return PASSED;
  },
  describe(a) {
    return `wait ${a.ms} ms`;
  },
};
