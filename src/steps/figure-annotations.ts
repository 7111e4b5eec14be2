import { CORNERS, DIRECTIONS, type Annotation, type Corner, type Direction } from '../figure/annotation-kinds.js';
import { lengthInPixels, LENGTH_PATTERN } from '../figure/length.js';
import type { Rgb } from '../image/rgba.js';
import { object, ref } from './schema-defs.js';
import type { JsonSchema, StepCompileContext, ValuePath } from './step-definition.js';

/* A panel's annotations as a playbook writes them, and as the plan keeps them (lengths on paper in pixels). */

type Point = [number, number, number];

export type RawAnnotation =
  | { arrow: { to: Point; from?: Direction; length?: string; label?: string; color?: Rgb; width?: string } }
  | { circle: { at: Point; radius: number; color?: Rgb; width?: string } }
  | { text: { at: Point; text: string; color?: Rgb } }
  | { ruler: { from: Point; to: Point; color?: Rgb; width?: string } }
  | { inset: { at: Point; size: number; zoom?: number; corner?: Corner; color?: Rgb; width?: string } };

/** Yellow: the colour radiologists mark images with, clear on grey and on the red of a label. */
const DEFAULT_COLOR: Rgb = [1, 1, 0];
const DEFAULT_ARROW = '8mm';
const DEFAULT_WIDTH = '0.35mm';
const DEFAULT_ZOOM = 3;

const point = (description: string): JsonSchema => ({ ...ref('vec3'), description });
const onPaper = (description: string): JsonSchema => ({ description, type: 'string', pattern: LENGTH_PATTERN });
const color = (description: string): JsonSchema => ({ ...ref('color'), description });
const lineWidth = onPaper('Width of its lines on paper (default 0.35mm).');

export const ANNOTATION_SCHEMA = object(
  {
    arrow: object(
      {
        to: point("Where the arrow's tip is, in world millimetres."),
        from: {
          description: 'The side the arrow comes from (default up-left).',
          enum: [...DIRECTIONS],
        },
        length: onPaper('Length on paper (default 8mm).'),
        label: { description: "Text at the arrow's tail.", type: 'string' },
        color: color('Colour (default yellow).'),
        width: lineWidth,
      },
      ['to'],
      { description: 'An arrow whose tip is exactly at a point.' },
    ),
    circle: object(
      {
        at: point('The centre, in world millimetres.'),
        radius: { description: 'Radius in millimetres in the patient.', type: 'number', exclusiveMinimum: 0 },
        color: color('Colour (default yellow).'),
        width: lineWidth,
      },
      ['at', 'radius'],
      { description: 'A circle around a point, of a radius in the patient.' },
    ),
    text: object(
      {
        at: point('The middle of the text, in world millimetres.'),
        text: { description: 'The text.', type: 'string', minLength: 1 },
        color: color('Colour (default yellow).'),
      },
      ['at', 'text'],
      { description: 'Text centred on a point.' },
    ),
    ruler: object(
      {
        from: point('One end, in world millimetres.'),
        to: point('The other end, in world millimetres.'),
        color: color('Colour (default yellow).'),
        width: lineWidth,
      },
      ['from', 'to'],
      { description: 'A line between two points, labelled with their distance in millimetres (`30.0 mm`).' },
    ),
    inset: object(
      {
        at: point('The middle of the region, in world millimetres.'),
        size: {
          description: "Height of the region in millimetres in the patient; its width follows the window's shape.",
          type: 'number',
          exclusiveMinimum: 0,
        },
        zoom: { description: 'Magnification, from 2 to 8 (default 3).', type: 'number', minimum: 2, maximum: 8 },
        corner: { description: 'Where the inset goes (default top-right).', enum: [...CORNERS] },
        color: color('Colour of the two frames (default yellow).'),
        width: lineWidth,
      },
      ['at', 'size'],
      {
        description:
          'A magnified view of a region in a corner of the panel, captured again with the camera zoomed in (not an enlarged crop), with frames on the region and the inset.',
      },
    ),
  },
  [],
  {
    description: 'One annotation: `arrow`, `circle`, `text`, `ruler` or `inset`.',
    minProperties: 1,
    maxProperties: 1,
  },
);

export function compileAnnotations(
  raw: readonly RawAnnotation[],
  at: ValuePath,
  dpi: number,
  ctx: Pick<StepCompileContext, 'error'>,
): Annotation[] {
  return raw.map((item, i) => {
    const path = [...at, i];
    const px = (p: ValuePath, key: string, text: string | undefined, fallback: string): number => {
      const value = lengthInPixels(text ?? fallback, dpi);
      if (value !== undefined && value > 0) return value;
      ctx.error('BAD_LENGTH', [...p, key], `\`${key}\` is not a length`, 'write a number and a unit: 8mm, 0.3in, 40px');
      return 1;
    };
    if ('arrow' in item) {
      const a = item.arrow;
      const p = [...path, 'arrow'];
      return {
        kind: 'arrow',
        to: a.to,
        from: a.from ?? 'up-left',
        length: px(p, 'length', a.length, DEFAULT_ARROW),
        ...(a.label !== undefined ? { label: a.label } : {}),
        color: a.color ?? DEFAULT_COLOR,
        width: px(p, 'width', a.width, DEFAULT_WIDTH),
      };
    }
    if ('circle' in item) {
      const c = item.circle;
      return {
        kind: 'circle',
        at: c.at,
        radius: c.radius,
        color: c.color ?? DEFAULT_COLOR,
        width: px([...path, 'circle'], 'width', c.width, DEFAULT_WIDTH),
      };
    }
    if ('text' in item)
      return { kind: 'text', at: item.text.at, text: item.text.text, color: item.text.color ?? DEFAULT_COLOR };
    if ('ruler' in item) {
      const r = item.ruler;
      return {
        kind: 'ruler',
        from: r.from,
        to: r.to,
        color: r.color ?? DEFAULT_COLOR,
        width: px([...path, 'ruler'], 'width', r.width, DEFAULT_WIDTH),
      };
    }
    const s = item.inset;
    return {
      kind: 'inset',
      at: s.at,
      size: s.size,
      zoom: s.zoom ?? DEFAULT_ZOOM,
      corner: s.corner ?? 'top-right',
      color: s.color ?? DEFAULT_COLOR,
      width: px([...path, 'inset'], 'width', s.width, DEFAULT_WIDTH),
    };
  });
}

/** `panel 2, arrow 1 ("tumour")`: how notices name an annotation. */
export function annotationName(panel: number, annotations: readonly Annotation[], index: number): string {
  const a = annotations[index]!;
  const nth = annotations.slice(0, index + 1).filter((b) => b.kind === a.kind).length;
  const label = a.kind === 'arrow' && a.label ? ` ("${a.label}")` : a.kind === 'text' ? ` ("${a.text}")` : '';
  return `panel ${panel + 1}, ${a.kind} ${nth}${label}`;
}
