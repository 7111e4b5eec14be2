// Straight from its module: the client's index loads the HTTP stack, which validating never needs.
import { splitFileName } from '../client/upload.js';
import { dropUndefined, requireApplied, showFields, showFile, showNode } from './describe.js';
import { displayFields, type DisplayFields, type RawDisplay } from './display-fields.js';
import type { StepRunContext } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { NodeRef, StepDefinition } from './step-definition.js';

export const TRANSFER_MODES = ['auto', 'direct', 'file-reference'] as const;

export interface LoadArgs {
  file: string;
  as?: string;
  name?: string;
  parent?: NodeRef;
  /** `auto` lets the runner choose: file reference when the workbench shares this machine, else bytes. */
  transfer: (typeof TRANSFER_MODES)[number];
  format?: string;
  visible?: boolean;
  opacity?: number;
  color?: [number, number, number];
  layer?: number;
  /** Level window, colour map, interpolation, outline and other properties. */
  display?: DisplayFields;
}

interface LoadRaw extends RawDisplay {
  file: string;
  as?: string;
  name?: string;
  parent?: string;
  transfer?: LoadArgs['transfer'];
  format?: string;
  visible?: boolean;
  opacity?: number;
  color?: [number, number, number];
  layer?: number;
}

export const load: StepDefinition<'load', LoadArgs> = {
  kind: 'load',
  summary: 'Load a data file into the workbench as a new node, optionally under a parent and with display properties.',
  schema: object(
    {
      file: ref('file'),
      as: ref('alias'),
      name: { description: 'Node name shown in the workbench.', type: 'string', minLength: 1 },
      parent: ref('node'),
      transfer: { description: 'How the data reaches the workbench.', enum: [...TRANSFER_MODES] },
      format: {
        description: 'Data format hint, when the file extension does not say it.',
        type: 'string',
        minLength: 1,
      },
      visible: {
        description: "Whether the node is shown in every window (default: the workbench's).",
        type: 'boolean',
      },
      opacity: ref('opacity'),
      layer: {
        description: 'Stack order in every window; higher is drawn on top (default: the order nodes were made in).',
        type: 'integer',
      },
      color: ref('color'),
      ...displayFields.schema,
    },
    ['file'],
  ),
  compile(raw, ctx) {
    const r = raw as LoadRaw;
    const parent = r.parent !== undefined ? ctx.node(r.parent, ['parent']) : undefined;
    const args: LoadArgs = {
      file: ctx.inputFile(r.file, ['file']),
      ...(r.as !== undefined ? { as: r.as } : {}),
      ...(r.name !== undefined ? { name: r.name } : {}),
      ...(parent ? { parent } : {}),
      transfer: r.transfer ?? 'auto',
      ...(r.format !== undefined ? { format: r.format } : {}),
      ...(r.visible !== undefined ? { visible: r.visible } : {}),
      ...(r.opacity !== undefined ? { opacity: r.opacity } : {}),
      ...(r.layer !== undefined ? { layer: r.layer } : {}),
      ...(r.color !== undefined ? { color: r.color } : {}),
      ...(displayFields.present(r) ? { display: displayFields.compile(r, ctx) } : {}),
    };
    ctx.defineNode(r.as, r.name);
    return args;
  },
  async run(a, ctx) {
    const parent = a.parent ? await ctx.resolveNode(a.parent) : undefined;
    let uid = ctx.attempt > 1 ? await findEarlier(ctx) : undefined;
    if (uid === undefined) {
      const created = await ctx.client.nodes.create({
        file: a.file,
        // Created under the step's marker and renamed below: see StepRunContext.marker.
        name: ctx.marker,
        ...(parent !== undefined ? { parent } : {}),
        ...(a.transfer !== 'auto' ? { transfer: a.transfer } : {}),
        ...(a.format !== undefined ? { format: a.format } : {}),
        signal: ctx.signal,
      });
      uid = created.node.uid;
    }
    ctx.bindNode(a.as, uid);
    const display = dropUndefined({
      name: a.name ?? splitFileName(a.file).stem,
      visible: a.visible,
      opacity: a.opacity,
      color: a.color,
      layer: a.layer,
    });
    requireApplied(await ctx.client.nodes.setDisplay(uid, display, { signal: ctx.signal }), uid);
    if (a.display) await displayFields.apply(ctx.client, uid, a.display, { signal: ctx.signal });
    return {
      status: 'passed',
      resolvedArgs: { ...a, ...(parent !== undefined ? { parent: { uid: parent } } : {}), uid },
    };
  },
  describe(a) {
    const extra = [
      showFields({ name: a.name, visible: a.visible, opacity: a.opacity, color: a.color, layer: a.layer }),
      a.display ? displayFields.describe(a.display) : '',
    ]
      .filter(Boolean)
      .join(', ');
    return `load ${showFile(a.file)}${a.as ? ` as ${a.as}` : ''}${a.parent ? ` under ${showNode(a.parent)}` : ''} (${a.transfer}${extra ? `; ${extra}` : ''})`;
  },
};

/**
 * The node an earlier attempt of this step made, if it made one: known when its answer
 * arrived, else found by the marker name when the answer was lost on the way back.
 */
async function findEarlier(ctx: StepRunContext): Promise<string | undefined> {
  const known = ctx.earlierNode();
  if (known !== undefined) return known;
  const nodes = await ctx.client.nodes.list({ hierarchy: 'all' }, { signal: ctx.signal });
  const found = nodes.find((n) => n.name === ctx.marker);
  if (found)
    ctx.notice(
      `the answer to an earlier attempt was lost but its node was created (${found.uid}); using that node instead of loading again`,
    );
  return found?.uid;
}
