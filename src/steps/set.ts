import { dropUndefined, requireApplied, showFields, showNode } from './describe.js';
import { object, ref } from './schema-defs.js';
import type { NodeRef, StepDefinition } from './step-definition.js';

export interface SetArgs {
  node: NodeRef;
  name?: string;
  visible?: boolean;
  opacity?: number;
  layer?: number;
  color?: [number, number, number];
  /** `null` moves the node to the top level. */
  parent?: NodeRef | null;
}

interface SetRaw {
  node: string;
  name?: string;
  visible?: boolean;
  opacity?: number;
  layer?: number;
  color?: [number, number, number];
  parent?: string | null;
}

export const set: StepDefinition<'set', SetArgs> = {
  kind: 'set',
  summary: 'Change display properties of a node: name, visible, opacity, color, layer, parent.',
  schema: object(
    {
      node: ref('node'),
      name: { description: 'New node name shown in the workbench.', type: 'string', minLength: 1 },
      visible: { description: 'Whether the node is shown in every window.', type: 'boolean' },
      opacity: ref('opacity'),
      color: ref('color'),
      layer: { description: 'Stack order in every window; higher is drawn on top.', type: 'integer' },
      parent: { description: 'New parent node, or null for the top level.', anyOf: [ref('node'), { type: 'null' }] },
    },
    ['node'],
  ),
  compile(raw, ctx) {
    const r = raw as SetRaw;
    const node = ctx.node(r.node, ['node']);
    if (Object.keys(r).length === 1) {
      ctx.keyError(
        'NOTHING_TO_DO',
        ['node'],
        '`set` changes nothing',
        'add at least one of name, visible, opacity, color, layer, parent',
      );
    }
    let parent: NodeRef | null | undefined;
    if (r.parent === null) parent = null;
    else if (r.parent !== undefined) parent = ctx.node(r.parent, ['parent']);
    if (r.name !== undefined) ctx.defineNode(undefined, r.name);
    return {
      node: node ?? { ref: r.node },
      ...(r.name !== undefined ? { name: r.name } : {}),
      ...(r.visible !== undefined ? { visible: r.visible } : {}),
      ...(r.opacity !== undefined ? { opacity: r.opacity } : {}),
      ...(r.layer !== undefined ? { layer: r.layer } : {}),
      ...(r.color !== undefined ? { color: r.color } : {}),
      ...(parent !== undefined ? { parent } : {}),
    };
  },
  async run(a, ctx) {
    const uid = await ctx.resolveNode(a.node);
    const parent = a.parent === undefined ? undefined : a.parent === null ? null : await ctx.resolveNode(a.parent);
    const result = await ctx.client.nodes.setDisplay(
      uid,
      dropUndefined({ name: a.name, visible: a.visible, opacity: a.opacity, color: a.color, layer: a.layer, parent }),
      { signal: ctx.signal },
    );
    requireApplied(result, uid);
    return {
      status: 'passed',
      resolvedArgs: {
        ...a,
        node: { uid },
        ...(parent !== undefined ? { parent: parent === null ? null : { uid: parent } } : {}),
      },
    };
  },
  describe(a) {
    return `set ${showNode(a.node)}: ${showFields({ name: a.name, visible: a.visible, opacity: a.opacity, color: a.color, layer: a.layer, parent: a.parent })}`;
  },
};
