import { withResolution } from '../image/png-resolution.js';
import { addPngText } from '../image/png-text.js';
import type { Rect, Rgb } from '../image/rgba.js';
import { placeColourBars, type ColourBar, type PlacedColourBar } from './colour-bar.js';
import { gridGeometry, isGeometryProblem, type Geometry, type GeometryProblem, type GridSpec } from './geometry.js';
import { measureTexts, rasterisePng } from './raster.js';
import {
  ENTRY_SPACE,
  figureSvg,
  SWATCH_SCALE,
  SWATCH_SPACE,
  type FigureDrawing,
  type PlacedLegendEntry,
} from './svg.js';

export interface LegendEntry {
  name: string;
  color: Rgb;
}

export interface FigureLayout {
  geometry: Geometry;
  legend: PlacedLegendEntry[];
  colourBars: PlacedColourBar[];
}

/**
 * The figure's geometry once its legend is known: entries are measured and wrapped into lines
 * as wide as the grid, each colour bar takes a line after them, and the lines they take are
 * given back to the grid (a figure of fixed height gives its panels less room).
 */
export function layoutFigure(
  spec: Omit<GridSpec, 'legendLines'>,
  entries: readonly LegendEntry[],
  bars: readonly ColourBar[] = [],
): FigureLayout | GeometryProblem {
  const first = gridGeometry({ ...spec, legendLines: entries.length + bars.length > 0 ? 1 : 0 });
  if (isGeometryProblem(first)) return first;
  if (entries.length + bars.length === 0) return { geometry: first, legend: [], colourBars: [] };
  const widths = measureTexts(
    entries.map((e) => e.name),
    spec.fontPx,
  );
  const lines = entries.length > 0 ? wrapLegend(entries, widths, first.legend, spec.fontPx) : [];
  const geometry = gridGeometry({ ...spec, legendLines: lines.length + bars.length });
  if (isGeometryProblem(geometry)) return geometry;
  const legend = lines.flatMap((line, i) =>
    line.map((e) => ({ name: e.name, color: e.color, x: e.x, y: geometry.legend.y + i * geometry.lineHeight })),
  );
  const top = geometry.legend.y + lines.length * geometry.lineHeight;
  const colourBars = placeColourBars(bars, geometry.legend, top, geometry.lineHeight, spec.fontPx);
  return { geometry, legend, colourBars };
}

/** Entries left to right, a new line when the next one would not fit; each line centred. */
function wrapLegend(
  entries: readonly LegendEntry[],
  widths: readonly number[],
  area: Rect,
  fontPx: number,
): Array<Array<LegendEntry & { x: number }>> {
  const lead = Math.round(fontPx * SWATCH_SCALE) + Math.round(fontPx * SWATCH_SPACE);
  const space = Math.round(fontPx * ENTRY_SPACE);
  const lines: Array<Array<LegendEntry & { width: number }>> = [[]];
  let used = 0;
  entries.forEach((e, i) => {
    const width = lead + widths[i]!;
    const line = lines[lines.length - 1]!;
    if (line.length > 0 && used + space + width > area.width) {
      lines.push([{ ...e, width }]);
      used = width;
    } else {
      used += (line.length > 0 ? space : 0) + width;
      line.push({ ...e, width });
    }
  });
  return lines.map((line) => {
    const total = line.reduce((sum, e, i) => sum + e.width + (i > 0 ? space : 0), 0);
    let x = area.x + Math.max(0, Math.floor((area.width - total) / 2));
    return line.map((e) => {
      const placed = { name: e.name, color: e.color, x };
      x += e.width + space;
      return placed;
    });
  });
}

export interface FigureFiles {
  /** With the typeface embedded, so it opens the same everywhere. */
  svg: string;
  /** RGB, with its print resolution and `text` as text chunks. */
  png: Uint8Array;
}

/** Both files of a figure from its one drawing; `text` goes into the PNG's text chunks as well as the SVG's metadata. */
export function drawFigure(drawing: FigureDrawing, dpi: number, text: Record<string, string>): FigureFiles {
  const withFacts = { ...drawing, metadata: text };
  const png = addPngText(withResolution(rasterisePng(figureSvg(withFacts, { embedFonts: false })), dpi), text);
  return { svg: figureSvg(withFacts, { embedFonts: true }), png };
}
