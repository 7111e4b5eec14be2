import type { LayerColours } from './render/types.js';

/**
 * An image drawn through its colour transfer function (MITK's `Image Rendering.Mode`
 * ColorTransferFunction_…): the `Image Rendering.Transfer Function` property's colour points
 * and scalar opacity points (TransferFunctionProperty JSON: "Color" [[x, r, g, b, midpoint,
 * sharpness], …], "ScalarOpacity" [[x, opacity], …]). VTK interpolates both linearly between
 * points and holds the end values beyond them; the level window plays no part (a colour
 * transfer function keeps the range MITK sets on it but does not use it).
 *
 * Drawn here through a table of SAMPLES entries over the colour points' range; a midpoint or
 * sharpness other than 0.5 and 0, and an HSV colour space, are drawn as linear RGB.
 */
const SAMPLES = 4096;

type Points = number[][];

function points(value: unknown, key: string, width: number): Points {
  const list = (value as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(list)) return [];
  return list
    .filter((p): p is number[] => Array.isArray(p) && p.length >= width && p.every((n) => typeof n === 'number'))
    .sort((a, b) => a[0]! - b[0]!);
}

/** Linear between points, the end values beyond them; 0 without points (VTK's empty function). */
function at(p: Points, x: number, column: number): number {
  if (p.length === 0) return 0;
  if (x <= p[0]![0]!) return p[0]![column]!;
  const last = p[p.length - 1]!;
  if (x >= last[0]!) return last[column]!;
  let i = 1;
  while (p[i]![0]! < x) i++;
  const [a, b] = [p[i - 1]!, p[i]!];
  const t = b[0]! === a[0]! ? 1 : (x - a[0]!) / (b[0]! - a[0]!);
  return a[column]! + (b[column]! - a[column]!) * t;
}

const cache = new WeakMap<object, LayerColours | null>();

/** The colours of a transfer function, or null when it has no colour points; worked out once per property value. */
export function transferFunctionColours(value: unknown): LayerColours | null {
  if (typeof value !== 'object' || value === null) return null;
  let colours = cache.get(value);
  if (colours === undefined) cache.set(value, (colours = sample(value)));
  return colours;
}

function sample(value: object): LayerColours | null {
  const colour = points(value, 'Color', 4);
  const opacity = points(value, 'ScalarOpacity', 2);
  if (colour.length === 0) return null;
  const lo = colour[0]![0]!;
  const hi = Math.max(colour[colour.length - 1]![0]!, lo + 1e-9);
  const table = new Uint8Array(SAMPLES * 4);
  const byte = (c: number): number => Math.trunc(255 * Math.min(Math.max(c, 0), 1) + 0.5);
  for (let i = 0; i < SAMPLES; i++) {
    const x = lo + ((i + 0.5) * (hi - lo)) / SAMPLES;
    table.set([byte(at(colour, x, 1)), byte(at(colour, x, 2)), byte(at(colour, x, 3)), byte(at(opacity, x, 1))], i * 4);
  }
  return { table, range: [lo, hi], lookup: 'linear' };
}
