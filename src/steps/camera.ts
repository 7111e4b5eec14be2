import { showFields } from './describe.js';
import { PASSED } from './run-context.js';
import { object, ref } from './schema-defs.js';
import { placeholder } from './slice.js';
import type { StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import { windowHandle } from './window-handle.js';

export const STANDARD_VIEWS = ['anterior', 'posterior', 'left', 'right', 'cranial', 'caudal'] as const;

export interface CameraArgs {
  window: Extract<WindowAddress, { target: 'window' }>;
  position?: [number, number, number];
  focal_point?: [number, number, number];
  view_up?: [number, number, number];
  parallel_scale?: number;
  perspective_angle?: number;
  standard_view?: (typeof STANDARD_VIEWS)[number];
}

const FIELDS = ['position', 'focal_point', 'view_up', 'parallel_scale', 'perspective_angle', 'standard_view'] as const;

export const camera: StepDefinition<'camera', CameraArgs> = {
  kind: 'camera',
  summary: 'Set the camera of a window; fields left out keep their value.',
  schema: object(
    {
      window: ref('window'),
      position: ref('vec3'),
      focal_point: ref('vec3'),
      view_up: ref('vec3'),
      parallel_scale: { description: 'Orthographic zoom; 2D windows only.', type: 'number', exclusiveMinimum: 0 },
      perspective_angle: {
        description: 'Vertical field of view in degrees; the 3D window only.',
        type: 'number',
        exclusiveMinimum: 0,
        exclusiveMaximum: 180,
      },
      standard_view: { description: 'Look at the scene from this side of the patient.', enum: [...STANDARD_VIEWS] },
    },
    ['window'],
  ),
  compile(raw, ctx) {
    const r = raw as Omit<CameraArgs, 'window'> & { window: string };
    const window = ctx.window(r.window, ['window'], ['window']);
    if (!FIELDS.some((f) => r[f] !== undefined)) {
      ctx.keyError('NOTHING_TO_DO', ['window'], '`camera` changes nothing', `add at least one of ${FIELDS.join(', ')}`);
    }
    if (r.standard_view !== undefined) {
      for (const f of ['position', 'focal_point', 'view_up'] as const) {
        if (r[f] !== undefined) {
          ctx.keyError(
            'CAMERA_CONFLICT',
            [f],
            `\`standard_view\` cannot be combined with \`${f}\``,
            `use either standard_view or position/focal_point/view_up, in two camera steps if needed`,
          );
        }
      }
    }
    if (window?.target === 'window') {
      if (window.kind === '2d' && r.perspective_angle !== undefined) {
        ctx.keyError(
          'CAMERA_KIND',
          ['perspective_angle'],
          `\`perspective_angle\` applies to the 3D window only, not to the 2D window \`${window.address}\``,
          'zoom a 2D window with `parallel_scale`',
        );
      }
      if (window.kind === '3d' && r.parallel_scale !== undefined) {
        ctx.keyError(
          'CAMERA_KIND',
          ['parallel_scale'],
          `\`parallel_scale\` applies to 2D windows only, not to \`${window.address}\``,
          'zoom the 3D window with `perspective_angle` or move its `position`',
        );
      }
    }
    const args: CameraArgs = { window: window?.target === 'window' ? window : placeholder(r.window) };
    for (const f of FIELDS) if (r[f] !== undefined) Object.assign(args, { [f]: r[f] });
    return args;
  },
  async run(a, ctx) {
    const { window, ...patch } = a;
    await windowHandle(ctx.client, window).setCamera(patch, { signal: ctx.signal });
    return PASSED;
  },
  describe(a) {
    const { window, ...fields } = a;
    return `camera of ${window.address}: ${showFields(fields)}`;
  },
};
