import type { ColourBar } from '../figure/colour-bar.js';
import type { LegendEntry } from '../figure/compose.js';
import type { Rgb } from '../image/rgba.js';
import type { StepRunContext } from './run-context.js';
import { object, ref } from './schema-defs.js';
import type { NodeRef, StepCompileContext } from './step-definition.js';
import type { WindowAddress } from './window-address.js';

/* A figure's legend: coloured structures of nodes and of its own, then colour scales of nodes. */

type Window = Extract<WindowAddress, { target: 'window' }>;

/** A node's colour scale in the legend, as one window shows it when `window` is given. */
export interface ColourBarArgs {
  node: NodeRef;
  label?: string;
  window?: Window;
}

export interface LegendArgs {
  nodes: NodeRef[];
  entries: LegendEntry[];
  colourBars: ColourBarArgs[];
}

export interface RawLegend {
  nodes?: string[];
  entries?: Array<{ name: string; color: Rgb }>;
  color_bars?: Array<string | { node: string; label?: string; window?: string }>;
}

export const LEGEND_SCHEMA = object(
  {
    nodes: {
      description: 'Nodes whose names and colours are listed; a segmentation lists its labels.',
      type: 'array',
      items: ref('node'),
    },
    entries: {
      description: 'Entries given here, after those of the nodes.',
      type: 'array',
      items: object(
        {
          name: { description: 'The text of the entry.', type: 'string', minLength: 1 },
          color: ref('color'),
        },
        ['name', 'color'],
        { description: 'One legend entry.' },
      ),
    },
    color_bars: {
      description:
        "Nodes whose colour scale is shown: the lookup table's colours from the low to the high end of the level window, in the data's units.",
      type: 'array',
      items: {
        description: 'A node, or a node with the label and the window whose level window is shown.',
        anyOf: [
          ref('node'),
          object(
            {
              node: ref('node'),
              label: { description: "The bar's label; default the node's name.", type: 'string', minLength: 1 },
              window: {
                ...ref('window'),
                description:
                  "The window whose level window and colour map are shown (a window may have its own); default the node's.",
              },
            },
            ['node'],
            { description: 'A colour bar with its label and window.' },
          ),
        ],
      },
    },
  },
  [],
  { description: 'A legend below the panels: coloured structures, then colour scales.', minProperties: 1 },
);

export function compileLegend(raw: RawLegend | undefined, ctx: StepCompileContext): LegendArgs {
  return {
    nodes: (raw?.nodes ?? []).flatMap((n, i) => ctx.node(n, ['legend', 'nodes', i]) ?? []),
    entries: raw?.entries ?? [],
    colourBars: (raw?.color_bars ?? []).flatMap((b, i) => compileBar(b, i, ctx)),
  };
}

function compileBar(
  raw: string | { node: string; label?: string; window?: string },
  i: number,
  ctx: StepCompileContext,
): ColourBarArgs[] {
  const at = ['legend', 'color_bars', i];
  const spec = typeof raw === 'string' ? { node: raw } : raw;
  const node = ctx.node(spec.node, typeof raw === 'string' ? at : [...at, 'node']);
  if (!node) return [];
  const window = spec.window !== undefined ? ctx.window(spec.window, [...at, 'window'], ['window']) : undefined;
  return [
    {
      node,
      ...(spec.label !== undefined ? { label: spec.label } : {}),
      ...(window?.target === 'window' ? { window } : {}),
    },
  ];
}

/** The legend's entries and colour bars read from the workbench, and the legend with its nodes resolved. */
export async function legendOf(
  legend: LegendArgs,
  ctx: StepRunContext,
): Promise<{ entries: LegendEntry[]; bars: ColourBar[]; resolved: LegendArgs }> {
  const { colourBarOfNode, legendOfNode } = await import('./figure-content.js');
  const call = { signal: ctx.signal };
  const entries: LegendEntry[] = [];
  const nodes: NodeRef[] = [];
  for (const node of legend.nodes) {
    const uid = await ctx.resolveNode(node);
    nodes.push({ uid });
    entries.push(...(await legendOfNode(ctx.client, uid, call)));
  }
  entries.push(...legend.entries);
  const bars: ColourBar[] = [];
  const colourBars: ColourBarArgs[] = [];
  for (const b of legend.colourBars) {
    const uid = await ctx.resolveNode(b.node);
    colourBars.push({ ...b, node: { uid } });
    bars.push(await colourBarOfNode(ctx.client, uid, b, call));
  }
  return { entries, bars, resolved: { ...legend, nodes, colourBars } };
}
