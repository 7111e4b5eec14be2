import { closest } from '../diagnostics/did-you-mean.js';
// Straight from their modules: the client's index loads the HTTP stack, which compiling never needs.
import { LEVEL_WINDOW_PRESETS, isLevelWindowPreset } from '../client/level-window.js';
import { COLORMAPS, COLORMAPS_LEFT_OUT, isColormap, type Colormap } from '../client/lookup-tables.js';
import { encodePropertyValue, propertyKeyProblem } from '../client/property-classes.js';
import type { PropertyWriteResult, ResliceInterpolation, WorkbenchClient } from '../client/index.js';
import type { Rgb } from '../image/rgba.js';
import { object, ref } from './schema-defs.js';
import type { JsonSchema, StepCompileContext } from './step-definition.js';

/*
 * The display fields `set`, `load` and `window_node` share: a level window, a colour map,
 * interpolation, an outline and any other property, each set as MITK keeps it (see
 * client/display.ts). In `window_node` they apply to that one window (MITK's renderer context).
 */

export interface DisplayFields {
  /** Resolved at compile time; `preset` names it when it came from one. */
  levelWindow?: { level: number; window: number; preset?: string };
  colormap?: Colormap;
  interpolation?: { texture?: boolean; reslice?: ResliceInterpolation };
  outline?: { enabled: boolean; width?: number; shadow?: boolean; shadowColor?: Rgb; shadowWidth?: number };
  /** As written: checked at compile time, encoded when sent. */
  properties?: Record<string, unknown>;
}

const PRESETS = Object.keys(LEVEL_WINDOW_PRESETS);

export const DISPLAY_SCHEMA: Record<string, JsonSchema> = {
  level_window: {
    description: `The grey-value window: {level, window} in the image's units, or one of MITK's presets (${PRESETS.join(', ')}).`,
    anyOf: [
      // The soft-tissue preset first: the one a first playbook on a CT most likely wants.
      {
        description: "One of MITK's level-window presets.",
        type: 'string',
        minLength: 1,
        examples: ['Liver', ...PRESETS.filter((p) => p !== 'Liver')],
      },
      object(
        {
          level: { description: 'The grey value in the middle of the window.', type: 'number' },
          window: {
            description: 'The width of the window; values outside it are black or white.',
            type: 'number',
            exclusiveMinimum: 0,
          },
        },
        ['level', 'window'],
        { description: 'A level and a window.', examples: [{ level: 40, window: 400 }] },
      ),
    ],
  },
  colormap: {
    description: `A MITK lookup table, spread over the level window: ${COLORMAPS.join(', ')}.`,
    type: 'string',
    minLength: 1,
    examples: COLORMAPS,
  },
  interpolation: object(
    {
      texture: {
        description: 'Smooth the slice between voxels when it is magnified (MITK: texture interpolation).',
        type: 'boolean',
      },
      reslice: {
        description: 'How values are taken between voxels when the image is resliced (MITK: reslice interpolation).',
        enum: ['nearest', 'linear', 'cubic'],
      },
    },
    [],
    { description: 'Interpolation of an image as it is drawn.', minProperties: 1 },
  ),
  outline: {
    description: 'Draw a binary image as its outline: true, false, or the outline’s look.',
    anyOf: [
      { description: 'Outline on or off.', type: 'boolean' },
      object(
        {
          width: { description: 'Line width in screen pixels (default 1).', type: 'number', exclusiveMinimum: 0 },
          shadow: { description: 'A shadow beside the line.', type: 'boolean' },
          shadow_color: { ...ref('color'), description: 'Colour of the shadow (default black).' },
          shadow_width: {
            description: 'Width of the shadow as a multiple of the line width (default 1.5).',
            type: 'number',
            exclusiveMinimum: 0,
          },
        },
        [],
        { description: 'An outline with its look.' },
      ),
    ],
  },
  properties: {
    description:
      'Any other MITK property by its key: a boolean, number or string, or {type: <MITK property class>, value: …}. Numbers of known float properties are sent as floats.',
    type: 'object',
    minProperties: 1,
  },
};

/** Which field a raw property would also set: the two may not both be given. */
const CLASHES: Record<string, string> = {
  visible: 'visible',
  opacity: 'opacity',
  color: 'color',
  layer: 'layer',
  levelwindow: 'level_window',
  LookupTable: 'colormap',
  'Image Rendering.Mode': 'colormap',
  'texture interpolation': 'interpolation',
  'reslice interpolation': 'interpolation',
  'outline binary': 'outline',
  'outline width': 'outline',
  'outline binary shadow': 'outline',
  'outline binary shadow color': 'outline',
  'outline shadow width': 'outline',
};

export interface RawDisplay {
  level_window?: string | { level: number; window: number };
  colormap?: string;
  interpolation?: { texture?: boolean; reslice?: ResliceInterpolation };
  outline?: boolean | { width?: number; shadow?: boolean; shadow_color?: Rgb; shadow_width?: number };
  properties?: Record<string, unknown>;
}

export const hasDisplayFields = (raw: object): boolean => Object.keys(DISPLAY_SCHEMA).some((k) => k in raw);

/** The display fields of a step's value, checked: presets, colour maps and property keys and values. */
export function compileDisplay(raw: RawDisplay, ctx: StepCompileContext): DisplayFields {
  const out: DisplayFields = {};
  const lw = raw.level_window;
  if (typeof lw === 'string') {
    if (isLevelWindowPreset(lw)) out.levelWindow = { ...LEVEL_WINDOW_PRESETS[lw], preset: lw };
    else {
      const near = nearest(lw, PRESETS);
      ctx.error(
        'BAD_VALUE',
        ['level_window'],
        `\`${lw}\` is not one of MITK's level-window presets`,
        near ? `did you mean \`${near}\`?` : `use one of ${PRESETS.join(', ')}, or {level, window}`,
      );
    }
  } else if (lw !== undefined) out.levelWindow = { level: lw.level, window: lw.window };
  if (raw.colormap !== undefined) {
    if (isColormap(raw.colormap)) out.colormap = raw.colormap;
    else {
      const why = COLORMAPS_LEFT_OUT[raw.colormap];
      const near = nearest(raw.colormap, COLORMAPS);
      ctx.error(
        'BAD_VALUE',
        ['colormap'],
        why
          ? `MITK's \`${raw.colormap}\` table is not reproduced here: its colours are ${why}`
          : `\`${raw.colormap}\` is not one of the colour maps`,
        near && !why
          ? `did you mean \`${near}\`?`
          : `use one of ${COLORMAPS.join(', ')}, or give a table in properties: {LookupTable: …}`,
      );
    }
  }
  if (raw.interpolation !== undefined) out.interpolation = { ...raw.interpolation };
  if (raw.outline !== undefined) {
    const o = typeof raw.outline === 'boolean' ? {} : raw.outline;
    out.outline = {
      enabled: raw.outline !== false,
      ...(o.width !== undefined ? { width: o.width } : {}),
      ...(o.shadow !== undefined ? { shadow: o.shadow } : {}),
      ...(o.shadow_color !== undefined ? { shadowColor: o.shadow_color } : {}),
      ...(o.shadow_width !== undefined ? { shadowWidth: o.shadow_width } : {}),
    };
  }
  if (raw.properties !== undefined) out.properties = compileProperties(raw, ctx);
  return out;
}

/** The closest name, or one that contains the word (`Rainbow` in `Legacy Rainbow Color`). */
function nearest(word: string, names: readonly string[]): string | undefined {
  return closest(word, names) ?? names.find((n) => n.toLowerCase().includes(word.toLowerCase()));
}

function compileProperties(raw: RawDisplay, ctx: StepCompileContext): Record<string, unknown> {
  const props = raw.properties ?? {};
  for (const [key, value] of Object.entries(props)) {
    const keyProblem = propertyKeyProblem(key);
    if (keyProblem !== undefined) {
      ctx.keyError('BAD_VALUE', ['properties', key], `property key ${JSON.stringify(key)}: ${keyProblem}`);
      continue;
    }
    if (key === 'name') {
      ctx.keyError('BAD_VALUE', ['properties', key], 'a node is renamed with `name:`', 'move it out of `properties`');
      continue;
    }
    const field = CLASHES[key];
    if (field !== undefined && field in raw) {
      ctx.keyError(
        'EXCLUSIVE_FIELDS',
        ['properties', key],
        field === key
          ? `\`${key}\` is given twice: as a field and in \`properties\``
          : `\`${key}\` is set by \`${field}\` too`,
        `give either \`${field}\` or properties: {${key}}`,
      );
      continue;
    }
    const encoded = encodePropertyValue(key, value);
    if (!encoded.ok) ctx.error('BAD_VALUE', ['properties', key], `property \`${key}\`: ${encoded.problem}`);
  }
  return { ...props };
}

/**
 * Sets the fields on a node, in one window when `context` is given. The colour map goes first
 * (it sets the rendering mode the level window then spreads it over), the generic properties
 * last. A property the workbench did not apply, or kept at its old value, fails the step.
 */
export async function applyDisplay(
  client: WorkbenchClient,
  uid: string,
  d: DisplayFields,
  call: { signal: AbortSignal; context?: string },
): Promise<void> {
  const opts = { signal: call.signal, ...(call.context !== undefined ? { context: call.context } : {}) };
  const results: PropertyWriteResult[] = [];
  if (d.colormap !== undefined || d.outline !== undefined) await requireImageKind(client, uid, d, opts);
  if (d.colormap !== undefined) results.push(await client.display.setColormap(uid, d.colormap, opts));
  if (d.levelWindow !== undefined)
    await client.display.setLevelWindow(uid, { level: d.levelWindow.level, window: d.levelWindow.window }, opts);
  if (d.interpolation !== undefined) results.push(await client.display.setInterpolation(uid, d.interpolation, opts));
  if (d.outline !== undefined) results.push(await client.display.setOutline(uid, d.outline, opts));
  if (d.properties !== undefined) results.push(await client.display.setProperties(uid, d.properties, opts));
  const failed = results.flatMap((r) => r.failed.map((f) => `${f.property} (${f.error})`));
  const kept = results.flatMap((r) =>
    r.kept.map((k) => `${k.property} (sent ${JSON.stringify(k.sent)}, still ${JSON.stringify(k.stored)})`),
  );
  if (failed.length > 0 || kept.length > 0) {
    throw Object.assign(
      new Error(
        `the workbench did not apply ${[...failed, ...kept].join(', ')} to node ${uid}${kept.length > 0 ? ': it keeps a property of another class at its old value; write the value in that class, e.g. {type: FloatProperty, value: …}' : ''}`,
      ),
      { code: 'PROPERTY_NOT_APPLIED' },
    );
  }
}

/**
 * MITK draws a binary image through its own table in its colour, whatever the colour map, and
 * draws outlines of binary images only: say so instead of setting what shows nothing.
 */
async function requireImageKind(
  client: WorkbenchClient,
  uid: string,
  d: DisplayFields,
  opts: { signal: AbortSignal; context?: string },
): Promise<void> {
  const list = await client.properties.list(uid, { ...opts, names: ['binary'] });
  const binary = list.binary === true;
  const problem =
    d.colormap !== undefined && binary
      ? `node ${uid} is a binary image: MITK draws it in its colour through its binary table, so a colour map would not show; set properties: {binary: false} first`
      : d.outline?.enabled && !binary
        ? `node ${uid} is not a binary image: MITK draws outlines of binary images only (set properties: {binary: true} for a mask)`
        : undefined;
  if (problem !== undefined) throw Object.assign(new Error(problem), { code: 'NOT_APPLICABLE' });
}

/** `level_window=Liver (30/400), colormap=…` for plan descriptions. */
export function describeDisplay(d: DisplayFields): string {
  const parts: string[] = [];
  if (d.levelWindow)
    parts.push(
      `level_window=${d.levelWindow.preset ? `${d.levelWindow.preset} ` : ''}${d.levelWindow.level}/${d.levelWindow.window}`,
    );
  if (d.colormap) parts.push(`colormap=${d.colormap}`);
  if (d.interpolation)
    parts.push(
      `interpolation=${[d.interpolation.texture !== undefined ? `texture ${d.interpolation.texture ? 'on' : 'off'}` : '', d.interpolation.reslice ?? ''].filter(Boolean).join(' ')}`,
    );
  if (d.outline) parts.push(`outline=${d.outline.enabled ? 'on' : 'off'}`);
  if (d.properties) parts.push(`properties=${Object.keys(d.properties).join('|')}`);
  return parts.join(', ');
}

/**
 * Why a node's `color` shows nothing, if it does not: MITK's multi-label mapper colours each
 * label from the label set in the segmentation's data and never reads the node's `color`
 * (Modules/Multilabel/mitkLabelSetImageVtkMapper2D.cpp), while it does multiply the labels'
 * opacities by the node's `opacity`.
 */
export async function ignoredColour(
  client: WorkbenchClient,
  uid: string,
  color: Rgb | undefined,
  call: { signal: AbortSignal },
): Promise<string | undefined> {
  if (color === undefined) return undefined;
  const node = await client.nodes.get(uid, call);
  if (node.data_type !== 'MultiLabelSegmentation' && node.data_type !== 'LabelSetImage') return undefined;
  return (
    `\`color\` does nothing on ${node.name}: it is a multi-label segmentation, which MITK draws in its labels' ` +
    "own colours. Remove `color`; `opacity` and `visible` do work on the whole segmentation, and a label's " +
    'colour or visibility is part of the segmentation file (see docs/display-properties.md).'
  );
}

/** The display fields as one piece, for the steps that take them. */
export const displayFields = {
  schema: DISPLAY_SCHEMA,
  present: hasDisplayFields,
  compile: compileDisplay,
  apply: applyDisplay,
  describe: describeDisplay,
};
