import { showFields, showNode } from './describe.js';
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
}

export const windowNode: StepDefinition<'window_node', WindowNodeArgs> = {
  kind: 'window_node',
  summary: 'Show, hide or restack a node in one window only.',
  schema: object(
    {
      window: ref('window'),
      node: ref('node'),
      visible: { description: 'Whether the node is shown in this window.', type: 'boolean' },
      layer: { description: 'Stack order in this window.', type: 'integer' },
    },
    ['window', 'node'],
  ),
  compile(raw, ctx) {
    const r = raw as { window: string; node: string; visible?: boolean; layer?: number };
    const window = ctx.window(r.window, ['window'], ['window']);
    const node = ctx.node(r.node, ['node']);
    if (r.visible === undefined && r.layer === undefined) {
      ctx.keyError('NOTHING_TO_DO', ['node'], '`window_node` changes nothing', 'add `visible:` and/or `layer:`');
    }
    return {
      window: window?.target === 'window' ? window : placeholder(r.window),
      node: node ?? { ref: r.node },
      ...(r.visible !== undefined ? { visible: r.visible } : {}),
      ...(r.layer !== undefined ? { layer: r.layer } : {}),
    };
  },
  async run(a, ctx) {
    const uid = await ctx.resolveNode(a.node);
    const handle = windowHandle(ctx.client, a.window);
    const call = { signal: ctx.signal };
    if (a.visible !== undefined) await handle.setNodeVisible(uid, a.visible, call);
    if (a.layer !== undefined) await handle.setNodeLayer(uid, a.layer, call);
    return { status: 'passed', resolvedArgs: { ...a, node: { uid } } };
  },
  describe(a) {
    return `in ${a.window.address}, ${showNode(a.node)}: ${showFields({ visible: a.visible, layer: a.layer })}`;
  },
};
