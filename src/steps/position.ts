import { showVec } from './describe.js';
import { PASSED } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';

export interface PositionArgs {
  at: [number, number, number];
  /** An MxN cell; absent for the global (StdMulti) crosshair. */
  window?: Extract<WindowAddress, { target: 'window' }>;
}

export const position: StepDefinition<'position', PositionArgs> = {
  kind: 'position',
  summary: 'Move the crosshair to [x, y, z], globally or in one MxN cell ({window: mxn/<cell>, at: [x, y, z]}).',
  schema: { anyOf: [ref('vec3'), object({ window: ref('window'), at: ref('vec3') }, ['window', 'at'])] },
  compile(raw, ctx) {
    if (Array.isArray(raw)) return { at: raw as [number, number, number] };
    const r = raw as { window: string; at: [number, number, number] };
    const window = ctx.window(r.window, ['window'], ['window']);
    if (window?.target === 'window' && window.editor !== 'mxn') {
      ctx.error(
        'WRONG_TARGET',
        ['window'],
        `a position per window exists only for MxN cells, not \`${window.address}\``,
        'StdMulti windows share the global crosshair: write `position: [x, y, z]`',
      );
    }
    return { at: r.at, ...(window?.target === 'window' ? { window } : {}) };
  },
  async run(a, ctx) {
    const call = { signal: ctx.signal };
    if (a.window) await ctx.client.mxn.window(a.window.window).setSelectedPosition(a.at, call);
    else await ctx.client.rendering.setSelectedPosition(a.at, call);
    return PASSED;
  },
  describe(a) {
    return a.window
      ? `move the crosshair of ${a.window.address} to ${showVec(a.at)}`
      : `move the crosshair to ${showVec(a.at)}`;
  },
};
