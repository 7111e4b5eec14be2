import { PASSED } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import { windowHandle } from './window-handle.js';

export interface SliceArgs {
  window: Extract<WindowAddress, { target: 'window' }>;
  /** Not range checked here: the workbench clamps it, and the run says so. */
  step: number;
}

export const slice: StepDefinition<'slice', SliceArgs> = {
  kind: 'slice',
  summary: 'Select a slice (zero-based step) in a 2D window.',
  schema: object(
    {
      window: ref('window'),
      step: {
        description:
          "The slice index, from 0, along the window's view direction; axial slices count from the top (slice 0 is the highest z). A step past the last slice is clamped by MITK, with a warning.",
        type: 'integer',
        minimum: 0,
      },
    },
    ['window', 'step'],
  ),
  compile(raw, ctx) {
    const r = raw as { window: string; step: number };
    const window = ctx.window(r.window, ['window'], ['window']);
    if (window?.target === 'window' && window.kind === '3d') {
      ctx.error(
        'SLICE_3D',
        ['window'],
        `\`${window.address}\` is a 3D window and has no slices`,
        'select the slice in a 2D window: stdmulti/axial, stdmulti/sagittal, stdmulti/coronal or an MxN cell',
      );
    }
    return { window: window?.target === 'window' ? window : placeholder(r.window), step: r.step };
  },
  async run(a, ctx) {
    const window = windowHandle(ctx.client, a.window);
    await window.setSelectedSlice(a.step, { signal: ctx.signal });
    // MITK's stepper clamps a step past the last slice (mitkStepper.h, SetPos) instead of
    // refusing it, so the only sign of a wrong index is the slice the window ended on.
    const shown = await window.selectedSlice({ signal: ctx.signal });
    const steps = shown.bounds.steps;
    if (steps === 0) {
      ctx.notice(
        `${a.window.address} has no slices to select: no \`reinit\` has fitted it to the data. ` +
          'Add `- reinit` after the `load` steps, before `slice`.',
      );
    } else if (a.step >= steps) {
      ctx.notice(
        `slice ${a.step} is beyond ${a.window.address}, which has ${steps} slices (0-${steps - 1}); ` +
          `MITK showed slice ${shown.step} instead. Pick a step from 0 to ${steps - 1}.`,
      );
    }
    return PASSED;
  },
  describe(a) {
    return `select slice ${a.step} in ${a.window.address}`;
  },
};

/** Stands in for a window whose address was reported as wrong; the step is dropped anyway. */
export function placeholder(address: string): Extract<WindowAddress, { target: 'window' }> {
  return { target: 'window', address, editor: 'stdmulti', window: address, kind: '2d' };
}
