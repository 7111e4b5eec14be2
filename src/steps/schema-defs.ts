import type { JsonSchema } from './step-definition.js';

/**
 * Shapes shared by several step kinds. Step schemas refer to them as `#/$defs/<name>`; the
 * published schema carries them at its root, and the compiler maps an error under one of them
 * to one message about the whole value (a colour is wrong as a whole, not item by item).
 */
export const SCHEMA_DEFS: Record<string, JsonSchema> = {
  vec3: {
    description: 'Three numbers [x, y, z] in world millimetres.',
    type: 'array',
    items: { type: 'number' },
    minItems: 3,
    maxItems: 3,
    examples: [[12.5, -4, 30]],
  },
  color: {
    description: 'Red, green and blue, each from 0 to 1.',
    type: 'array',
    items: { type: 'number', minimum: 0, maximum: 1 },
    minItems: 3,
    maxItems: 3,
    examples: [[1, 0.3, 0.2]],
  },
  opacity: { description: 'From 0 (transparent) to 1 (opaque).', type: 'number', minimum: 0, maximum: 1 },
  window: {
    description:
      'A window address: `app`, `stdmulti`, `mxn`, `stdmulti/<axial|sagittal|coronal|3d>` or `mxn/<cell id>`.',
    type: 'string',
    pattern: '^(app|stdmulti|mxn|stdmulti/(axial|sagittal|coronal|3d)|mxn/[A-Za-z][A-Za-z0-9.-]*__[A-Za-z0-9_.-]+)$',
    examples: ['stdmulti/axial', 'stdmulti/sagittal', 'stdmulti/coronal', 'stdmulti/3d', 'stdmulti', 'mxn', 'app'],
  },
  node: {
    description: 'A node: an alias given by `load … as:`, a node name, `uid:<UID>` or `name:<name>`.',
    type: 'string',
    minLength: 1,
  },
  alias: {
    description: 'A name later steps use to refer to this node.',
    type: 'string',
    pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$',
  },
  file: { description: 'A path, relative to the playbook file.', type: 'string', minLength: 1 },
  size: {
    description: "Pixels, from 1 to 16384; default: the window's own size.",
    type: 'integer',
    minimum: 1,
    maximum: 16384,
  },
  rect: {
    description: 'A pixel rectangle.',
    type: 'object',
    additionalProperties: false,
    required: ['x', 'y', 'width', 'height'],
    properties: {
      x: { description: 'Left edge, in pixels from the left.', type: 'integer', minimum: 0 },
      y: { description: 'Top edge, in pixels from the top.', type: 'integer', minimum: 0 },
      width: { description: 'Width in pixels.', type: 'integer', minimum: 1 },
      height: { description: 'Height in pixels.', type: 'integer', minimum: 1 },
    },
  },
  threshold: {
    description: 'Per-pixel colour distance from 0 to 1 (pixelmatch); default 0.1.',
    type: 'number',
    minimum: 0,
    maximum: 1,
  },
  max_diff_pixels: { description: 'How many pixels may differ.', type: 'integer', minimum: 0 },
  max_diff_ratio: {
    description: 'Which share of the pixels may differ, from 0 to 1.',
    type: 'number',
    minimum: 0,
    maximum: 1,
  },
};

/** A closed object schema, the usual shape of a step's value. */
export function object(
  properties: Record<string, JsonSchema>,
  required: readonly string[] = [],
  extra: JsonSchema = {},
): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    ...(required.length > 0 ? { required: [...required] } : {}),
    properties,
    ...extra,
  };
}

export const ref = (name: keyof typeof SCHEMA_DEFS & string): JsonSchema => ({ $ref: `#/$defs/${name}` });
