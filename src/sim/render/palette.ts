import type { Rgb } from './types.js';

/** Distinct, saturated colours for label values, as segmentation tools use; value 1 first. */
const LABELS: Rgb[] = [
  [1.0, 0.2, 0.2],
  [0.2, 1.0, 0.2],
  [0.2, 0.4, 1.0],
  [1.0, 0.85, 0.2],
  [0.8, 0.2, 1.0],
  [0.2, 0.9, 0.9],
  [1.0, 0.5, 0.1],
  [0.6, 0.8, 0.3],
];

export const PALETTE_SIZE = LABELS.length;

/** Colour of label value `value` (1, 2, ...); the palette repeats for larger values. */
export function labelColor(value: number): Rgb {
  return LABELS[(value - 1) % LABELS.length]!;
}
