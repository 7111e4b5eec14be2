import { withResolution } from '../image/png-resolution.js';
import { addPngText } from '../image/png-text.js';
import type { Rect, Rgb } from '../image/rgba.js';
import { placeColourBars, type ColourBar, type PlacedColourBar } from './colour-bar.js';
import { gridGeometry, isGeometryProblem, type Geometry, type GeometryProblem, type GridSpec } from './geometry.js';
import { encodeRenderPng } from '../image/png-encode.js';
import { subsetFontRules } from './font-subset.js';
import { textsOf } from './marks.js';
import { figurePdf } from './pdf.js';
import { measureTexts, rasterise } from './raster.js';
import { encodeTiff } from './tiff.js';
import {
  ENTRY_SPACE,
  figureMarks,
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

/** The files a figure can be written as, beside the PNG it is saved as. */
export const FIGURE_FORMATS = ['png', 'svg', 'pdf', 'tiff'] as const;
export type FigureFormat = (typeof FIGURE_FORMATS)[number];

export interface FigureFiles {
  /** RGB, with its print resolution and `text` as text chunks. */
  png?: Uint8Array;
  /** With the glyphs it uses embedded, so it opens the same everywhere. */
  svg?: string;
  /** One page of the figure's size; text as text, in an embedded subset of the typeface. */
  pdf?: Uint8Array;
  /** The PNG's pixels and resolution, Deflate-compressed. */
  tiff?: Uint8Array;
}

/**
 * The files of a figure from its one drawing; `text` goes into the PNG's text chunks as well as
 * the SVG's metadata. The PNG and the TIFF are one rasterisation of the SVG (drawn with the whole
 * typeface), the PDF is written from the same marks.
 */
export async function drawFigure(
  drawing: FigureDrawing,
  dpi: number,
  text: Record<string, string>,
  formats: readonly FigureFormat[] = ['png', 'svg'],
): Promise<FigureFiles> {
  const withFacts = { ...drawing, metadata: text };
  const files: FigureFiles = {};
  if (formats.includes('png') || formats.includes('tiff')) {
    const image = rasterise(figureSvg(withFacts, { embedFonts: false }));
    if (formats.includes('png')) files.png = addPngText(withResolution(encodeRenderPng(image, false), dpi), text);
    if (formats.includes('tiff')) files.tiff = encodeTiff(image, dpi);
  }
  if (formats.includes('svg'))
    files.svg = figureSvg(withFacts, {
      embedFonts: false,
      fonts: await subsetFontRules(textsOf(figureMarks(withFacts))),
    });
  if (formats.includes('pdf')) files.pdf = await figurePdf(withFacts, dpi);
  return files;
}
