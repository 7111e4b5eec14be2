import { PASSED } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import { windowHandle } from './window-handle.js';

export interface SliceArgs {
  window: Extract<WindowAddress, { target: 'window' }>;
  /** Not range checked: the workbench clamps it. */
  step: number;
}

export const slice: StepDefinition<'slice', SliceArgs> = {
  kind: 'slice',
  summary: 'Select a slice (zero-based step) in a 2D window.',
  schema: object(
    {
      window: ref('window'),
      step: { description: "The slice index, from 0, along the window's view direction.", type: 'integer', minimum: 0 },
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
    await windowHandle(ctx.client, a.window).setSelectedSlice(a.step, { signal: ctx.signal });
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
