import type { Rgb } from '../image/rgba.js';

/*
 * A figure as a list of marks: every letter, heading, panel, scale bar, legend entry and
 * annotation, placed in the figure's pixels. The SVG (and through it the PNG) and the PDF are
 * each written from this one list, so the three files show the same drawing.
 */

export type Anchor = 'start' | 'middle' | 'end';

export interface TextMark {
  kind: 'text';
  x: number;
  /** The baseline. */
  y: number;
  text: string;
  fill: Rgb;
  /** Pixels; default the figure's type size. */
  size?: number;
  bold?: boolean;
  anchor?: Anchor;
  /** Degrees, counter-clockwise on the page, about (x, y) before anchoring. */
  turn?: 90;
}

export interface RectMark {
  kind: 'rect';
  x: number;
  y: number;
  width: number;
  height: number;
  fill?: Rgb;
  stroke?: Rgb;
  strokeWidth?: number;
  /** Edges on whole pixels, not smoothed. */
  crisp?: boolean;
}

export interface EllipseMark {
  kind: 'ellipse';
  cx: number;
  cy: number;
  rx: number;
  ry: number;
  stroke: Rgb;
  strokeWidth: number;
}

/** An open line through points, or a closed filled shape. */
export interface PathMark {
  kind: 'path';
  points: ReadonlyArray<readonly [number, number]>;
  closed: boolean;
  stroke?: Rgb;
  strokeWidth?: number;
  fill?: Rgb;
}

export interface ImageMark {
  kind: 'image';
  x: number;
  y: number;
  width: number;
  height: number;
  bytes: Uint8Array;
  mime: 'image/png' | 'image/jpeg';
  /** The image keeps its aspect inside the box, centred (panels of image files). */
  fit?: boolean;
}

/** A left-to-right colour ramp in a framed box. */
export interface RampMark {
  kind: 'ramp';
  x: number;
  y: number;
  width: number;
  height: number;
  /** RGBA, 0..1, left first. */
  colours: ReadonlyArray<readonly [number, number, number, number]>;
  stroke: Rgb;
}

/** A group drawn only inside a rectangle (annotations stay inside their panel). */
export interface ClipMark {
  kind: 'clip';
  x: number;
  y: number;
  width: number;
  height: number;
  marks: Mark[];
}

export type Mark = TextMark | RectMark | EllipseMark | PathMark | ImageMark | RampMark | ClipMark;

/** Every text a list of marks shows, for the glyphs a font subset must keep. */
export function textsOf(marks: readonly Mark[]): Array<{ text: string; bold: boolean }> {
  return marks.flatMap((m) =>
    m.kind === 'text' ? [{ text: m.text, bold: m.bold === true }] : m.kind === 'clip' ? textsOf(m.marks) : [],
  );
}
