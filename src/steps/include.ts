import { showFile } from './describe.js';
import { object, ref } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';

export interface IncludeArgs {
  file: string;
  vars: Record<string, string | number | boolean>;
}

/**
 * The compiler inlines the included steps in place of this one (each keeps its own file and
 * line); this definition only checks the step itself.
 */
export const include: StepDefinition<'include', IncludeArgs> = {
  kind: 'include',
  summary: 'Run the steps of another playbook here, with its own variables.',
  schema: object(
    {
      file: ref('file'),
      vars: {
        description: 'Variables of the included playbook.',
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      },
    },
    ['file'],
  ),
  compile(raw, ctx) {
    const r = raw as { file: string; vars?: IncludeArgs['vars'] };
    return { file: ctx.inputFile(r.file, ['file']), vars: r.vars ?? {} };
  },
  describe(a) {
    return `include ${showFile(a.file)}`;
  },
  run() {
    // The compiler replaces every include by its steps; a plan never holds one.
    return Promise.reject(new Error('an include step cannot run: it is inlined when the playbook compiles'));
  },
};
