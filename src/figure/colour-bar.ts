import type { Rect } from '../image/rgba.js';
import { measureTexts } from './raster.js';

/**
 * A node's colour scale in a figure's legend: its lookup table's colours as drawn (tinted by
 * the node's colour), from the value at the low end of the level window to the value at its
 * high end, in the data's units.
 */
export interface ColourBar {
  label: string;
  /** RGBA, 0..1, low end first. */
  colours: ReadonlyArray<readonly [number, number, number, number]>;
  low: number;
  high: number;
}

/** A colour bar where the layout put it: one legend line, its label, end values and bar. */
export interface PlacedColourBar extends ColourBar {
  /** The line's top. */
  y: number;
  labelX: number;
  lowX: number;
  bar: Rect;
  highX: number;
}

/** Shares of the type size. */
const GAP = 0.6;
const BAR_HEIGHT = 0.7;
const BAR_MIN = 6;
const BAR_MAX = 20;

/**
 * Colour bars one per line from `top`, each centred in `area`: the label, the low value, the
 * bar, the high value. The bar takes half the line, within six and twenty type sizes, and
 * gives way to a long label rather than run past the figure's edge.
 */
export function placeColourBars(
  bars: readonly ColourBar[],
  area: Rect,
  top: number,
  lineHeight: number,
  fontPx: number,
): PlacedColourBar[] {
  return bars.map((bar, i) => {
    const [label, low, high] = measureTexts([bar.label, endValue(bar.low), endValue(bar.high)], fontPx) as [
      number,
      number,
      number,
    ];
    const gap = Math.round(fontPx * GAP);
    const preferred = Math.min(fontPx * BAR_MAX, Math.max(fontPx * BAR_MIN, area.width / 2));
    const room = area.width - (label + low + high + 3 * gap);
    const width = Math.round(Math.max(fontPx, Math.min(preferred, room)));
    const total = label + gap + low + gap + width + gap + high;
    const labelX = area.x + Math.max(0, Math.floor((area.width - total) / 2));
    const y = top + i * lineHeight;
    const height = Math.max(2, Math.round(fontPx * BAR_HEIGHT));
    const lowX = labelX + label + gap;
    const barX = lowX + low + gap;
    return {
      ...bar,
      y,
      labelX,
      lowX,
      bar: { x: barX, y: y + Math.floor((lineHeight - height) / 2), width, height },
      highX: barX + width + gap,
    };
  });
}

/** An end value as a reader wants it: whole numbers as they are, others to two decimals. */
export function endValue(v: number): string {
  const text = Number.isInteger(v) ? String(v) : String(Number(v.toFixed(2)));
  return text.replace(/^-/, '\u2212');
}
