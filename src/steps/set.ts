import { dropUndefined, requireApplied, showFields, showNode } from './describe.js';
import { displayFields, ignoredColour, type DisplayFields, type RawDisplay } from './display-fields.js';
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
  /** Level window, colour map, interpolation, outline and other properties. */
  display?: DisplayFields;
}

interface SetRaw extends RawDisplay {
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
  summary:
    'Change display properties of a node: name, visible, opacity, color, layer, parent, level window, colour map, interpolation, outline, any MITK property.',
  schema: object(
    {
      node: ref('node'),
      name: { description: 'New node name shown in the workbench.', type: 'string', minLength: 1 },
      visible: { description: 'Whether the node is shown in every window.', type: 'boolean' },
      opacity: ref('opacity'),
      color: ref('color'),
      layer: { description: 'Stack order in every window; higher is drawn on top.', type: 'integer' },
      parent: { description: 'New parent node, or null for the top level.', anyOf: [ref('node'), { type: 'null' }] },
      ...displayFields.schema,
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
        'add at least one of name, visible, opacity, color, layer, parent, level_window, colormap, interpolation, outline, properties',
      );
    }
    let parent: NodeRef | null | undefined;
    if (r.parent === null) parent = null;
    else if (r.parent !== undefined) parent = ctx.node(r.parent, ['parent']);
    if (r.name !== undefined) ctx.defineNode(undefined, r.name);
    const display = displayFields.present(r) ? displayFields.compile(r, ctx) : undefined;
    return {
      node: node ?? { ref: r.node },
      ...(r.name !== undefined ? { name: r.name } : {}),
      ...(r.visible !== undefined ? { visible: r.visible } : {}),
      ...(r.opacity !== undefined ? { opacity: r.opacity } : {}),
      ...(r.layer !== undefined ? { layer: r.layer } : {}),
      ...(r.color !== undefined ? { color: r.color } : {}),
      ...(parent !== undefined ? { parent } : {}),
      ...(display ? { display } : {}),
    };
  },
  async run(a, ctx) {
    const uid = await ctx.resolveNode(a.node);
    const parent = a.parent === undefined ? undefined : a.parent === null ? null : await ctx.resolveNode(a.parent);
    const basic = dropUndefined({
      name: a.name,
      visible: a.visible,
      opacity: a.opacity,
      color: a.color,
      layer: a.layer,
      parent,
    });
    if (Object.keys(basic).length > 0)
      requireApplied(await ctx.client.nodes.setDisplay(uid, basic, { signal: ctx.signal }), uid);
    if (a.display) await displayFields.apply(ctx.client, uid, a.display, { signal: ctx.signal });
    const ignored = await ignoredColour(ctx.client, uid, a.color, { signal: ctx.signal });
    if (ignored !== undefined) ctx.notice(ignored);
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
    const fields = showFields({
      name: a.name,
      visible: a.visible,
      opacity: a.opacity,
      color: a.color,
      layer: a.layer,
      parent: a.parent,
    });
    const display = a.display ? displayFields.describe(a.display) : '';
    return `set ${showNode(a.node)}: ${[fields, display].filter(Boolean).join(', ')}`;
  },
};
