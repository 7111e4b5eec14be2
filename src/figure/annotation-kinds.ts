import type { Rgb } from '../image/rgba.js';
import type { Vec3 } from './projection.js';

/*
 * What a figure's annotations are, as the plan keeps them: plain data with no drawing code, so
 * a command that only reads playbooks (`wbplay validate`) loads nothing of the figure renderer.
 */

export const DIRECTIONS = ['up', 'down', 'left', 'right', 'up-left', 'up-right', 'down-left', 'down-right'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const CORNERS = ['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const;
export type Corner = (typeof CORNERS)[number];

export type Annotation =
  | { kind: 'arrow'; to: Vec3; from: Direction; length: number; label?: string; color: Rgb; width: number }
  | { kind: 'circle'; at: Vec3; radius: number; color: Rgb; width: number }
  | { kind: 'text'; at: Vec3; text: string; color: Rgb }
  | { kind: 'ruler'; from: Vec3; to: Vec3; color: Rgb; width: number }
  | { kind: 'inset'; at: Vec3; size: number; zoom: number; corner: Corner; color: Rgb; width: number };
