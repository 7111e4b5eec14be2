import { showVec } from './describe.js';
import { PASSED } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import type { Vec3 } from '../api/wire.js';

export interface PositionArgs {
  at: [number, number, number];
  /** An MxN cell; absent for the global (StdMulti) crosshair. */
  window?: Extract<WindowAddress, { target: 'window' }>;
}

export const position: StepDefinition<'position', PositionArgs> = {
  kind: 'position',
  summary: 'Move the crosshair to [x, y, z], globally or in one MxN cell ({window: mxn/<cell>, at: [x, y, z]}).',
  schema: {
    anyOf: [
      ref('vec3'),
      object({ window: ref('window'), at: ref('vec3') }, ['window', 'at'], {
        examples: [{ window: 'mxn/mxn__widget0', at: [12.5, -4, 30] }],
      }),
    ],
  },
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
    const target = a.window ? ctx.client.mxn.window(a.window.window) : ctx.client.rendering;
    await target.setSelectedPosition(a.at, call);
    const { bounds } = await target.selectedPosition(call);
    const problem = outsideBounds(a.at, bounds.min_position, bounds.max_position);
    if (problem !== undefined) ctx.notice(problem);
    return PASSED;
  },
  describe(a) {
    return a.window
      ? `move the crosshair of ${a.window.address} to ${showVec(a.at)}`
      : `move the crosshair to ${showVec(a.at)}`;
  },
};

const AXES = ['x', 'y', 'z'] as const;

/**
 * Why the windows may not show a position: MITK accepts any point (mitkRenderingController.cpp,
 * HandlePUT_selectedPosition, checks only its shape), then each 2D window selects the slice
 * through it, clamped to the last slice past the stack's end and left unchanged before its start
 * (SliceNavigationHelper::SelectSliceByPoint, Stepper::SetPos).
 */
export function outsideBounds(at: Vec3, min: Vec3 | null, max: Vec3 | null): string | undefined {
  if (min === null || max === null)
    return (
      `the crosshair moved to ${showVec(at)}, but no \`reinit\` has fitted the windows to data, so no window ` +
      'shows it. Add `- reinit` after the `load` steps, before `position`.'
    );
  const off = AXES.flatMap((axis, i) =>
    at[i]! < min[i]! || at[i]! > max[i]! ? [`${axis} ${at[i]} is outside ${min[i]} to ${max[i]}`] : [],
  );
  if (off.length === 0) return undefined;
  return (
    `position ${showVec(at)} is outside the scene's bounds ${showVec(min)} to ${showVec(max)} (${off.join('; ')}, mm). ` +
    'MITK accepts it but shows the last slice along an axis past the end and keeps the slice it had before the ' +
    'start, so the windows do not show this point. Pick a position inside the bounds.'
  );
}
