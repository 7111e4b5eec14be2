import { showFields, showNode } from './describe.js';
import { displayFields, type DisplayFields, type RawDisplay } from './display-fields.js';
import { object, ref } from './schema-defs.js';
import { placeholder } from './slice.js';
import type { NodeRef, StepDefinition } from './step-definition.js';
import type { WindowAddress } from './window-address.js';
import { windowHandle } from './window-handle.js';

export interface WindowNodeArgs {
  window: Extract<WindowAddress, { target: 'window' }>;
  node: NodeRef;
  visible?: boolean;
  layer?: number;
  /** Level window, colour map, interpolation, outline and other properties, in this window only. */
  display?: DisplayFields;
}

export const windowNode: StepDefinition<'window_node', WindowNodeArgs> = {
  kind: 'window_node',
  summary:
    'Show, hide or restack a node in one window only, or give it a level window, colour map or other property there.',
  schema: object(
    {
      window: ref('window'),
      node: ref('node'),
      visible: { description: 'Whether the node is shown in this window.', type: 'boolean' },
      layer: { description: 'Stack order in this window.', type: 'integer' },
      ...displayFields.schema,
    },
    ['window', 'node'],
  ),
  compile(raw, ctx) {
    const r = raw as RawDisplay & { window: string; node: string; visible?: boolean; layer?: number };
    const window = ctx.window(r.window, ['window'], ['window']);
    const node = ctx.node(r.node, ['node']);
    const display = displayFields.present(r) ? displayFields.compile(r, ctx) : undefined;
    if (r.visible === undefined && r.layer === undefined && display === undefined) {
      ctx.keyError(
        'NOTHING_TO_DO',
        ['node'],
        '`window_node` changes nothing',
        'add `visible:`, `layer:`, `level_window:`, `colormap:`, `interpolation:`, `outline:` or `properties:`',
      );
    }
    return {
      window: window?.target === 'window' ? window : placeholder(r.window),
      node: node ?? { ref: r.node },
      ...(r.visible !== undefined ? { visible: r.visible } : {}),
      ...(r.layer !== undefined ? { layer: r.layer } : {}),
      ...(display ? { display } : {}),
    };
  },
  async run(a, ctx) {
    const uid = await ctx.resolveNode(a.node);
    const handle = windowHandle(ctx.client, a.window);
    const call = { signal: ctx.signal };
    if (a.visible !== undefined) await handle.setNodeVisible(uid, a.visible, call);
    if (a.layer !== undefined) await handle.setNodeLayer(uid, a.layer, call);
    if (a.display) await displayFields.apply(ctx.client, uid, a.display, { ...call, context: handle.context });
    return { status: 'passed', resolvedArgs: { ...a, node: { uid } } };
  },
  describe(a) {
    const fields = showFields({ visible: a.visible, layer: a.layer });
    return `in ${a.window.address}, ${showNode(a.node)}: ${[fields, a.display ? displayFields.describe(a.display) : ''].filter(Boolean).join(', ')}`;
  },
};
