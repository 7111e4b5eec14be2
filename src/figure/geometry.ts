import type { Rect } from '../image/rgba.js';

/** What decides where things go: every length already in pixels. */
export interface GridSpec {
  /** The whole figure. */
  width: number;
  /** The whole figure; without it, the panels' aspect decides. */
  height?: number;
  rows: number;
  columns: number;
  margin: number;
  gap: number;
  /** Type size of headings, titles and the legend. */
  fontPx: number;
  columnHeadings: boolean;
  rowHeadings: boolean;
  /** Whether panels have titles: every row then has a band above its panels. */
  titles: boolean;
  /** Panel height over panel width, when the figure's height is not given. */
  aspect: number;
  /** Lines of legend below the grid; 0 for none. */
  legendLines: number;
}

export interface Geometry {
  width: number;
  height: number;
  panelWidth: number;
  panelHeight: number;
  /** One per grid cell, row by row. */
  cells: Rect[];
  /** The band above each cell that holds its title (empty bands when there are no titles). */
  titleBands: Rect[];
  columnHeadings: Rect[];
  rowHeadings: Rect[];
  /** Below the grid, as wide as it. */
  legend: Rect;
  lineHeight: number;
}

/** Smaller panels cannot show a slice, a letter and a scale bar legibly. */
export const MIN_PANEL = 32;

export interface GeometryProblem {
  problem: string;
  hint: string;
}

/**
 * Places the panels of a grid: margins around, headings in a band above the columns and one
 * left of the rows, titles in a band above each row, the legend below. Every edge lands on a
 * whole pixel, so panels are drawn pixel for pixel as the workbench captured them; pixels that
 * do not divide evenly go to the margins.
 */
export function gridGeometry(spec: GridSpec): Geometry | GeometryProblem {
  const lineHeight = Math.ceil(spec.fontPx * 1.5);
  const headWidth = spec.rowHeadings ? lineHeight : 0;
  const headHeight = spec.columnHeadings ? lineHeight : 0;
  const titleHeight = spec.titles ? lineHeight : 0;
  const legendHeight = spec.legendLines > 0 ? spec.gap + spec.legendLines * lineHeight : 0;
  const { rows, columns, margin, gap } = spec;

  const across = spec.width - 2 * margin - headWidth - (columns - 1) * gap;
  const panelWidth = Math.floor(across / columns);
  const fixed = 2 * margin + headHeight + rows * titleHeight + (rows - 1) * gap + legendHeight;
  const panelHeight =
    spec.height !== undefined ? Math.floor((spec.height - fixed) / rows) : Math.round(panelWidth * spec.aspect);
  if (panelWidth < MIN_PANEL || panelHeight < MIN_PANEL) {
    return {
      problem: `the figure leaves ${Math.max(panelWidth, 0)}×${Math.max(panelHeight, 0)} pixels per panel for ${rows}×${columns} panels with their margins, gaps, headings${spec.legendLines > 0 ? ' and legend' : ''}; a panel needs at least ${MIN_PANEL}×${MIN_PANEL}`,
      hint: 'make the figure larger or its dpi higher, or use fewer columns, smaller gaps and margins',
    };
  }
  const height = spec.height ?? fixed + rows * panelHeight;
  const left = margin + headWidth + Math.floor((across - panelWidth * columns) / 2);
  const top = margin + headHeight;

  const cells: Rect[] = [];
  const titleBands: Rect[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      const x = left + c * (panelWidth + gap);
      const y = top + r * (titleHeight + panelHeight + gap);
      titleBands.push({ x, y, width: panelWidth, height: titleHeight });
      cells.push({ x, y: y + titleHeight, width: panelWidth, height: panelHeight });
    }
  }
  const gridWidth = columns * panelWidth + (columns - 1) * gap;
  const gridBottom = top + rows * (titleHeight + panelHeight) + (rows - 1) * gap;
  return {
    width: spec.width,
    height,
    panelWidth,
    panelHeight,
    cells,
    titleBands,
    columnHeadings: cells.slice(0, columns).map((c) => ({ x: c.x, y: margin, width: panelWidth, height: headHeight })),
    rowHeadings: Array.from({ length: rows }, (_, r) => ({
      x: margin,
      y: cells[r * columns]!.y,
      width: headWidth,
      height: panelHeight,
    })),
    legend: { x: left, y: gridBottom + gap, width: gridWidth, height: spec.legendLines * lineHeight },
    lineHeight,
  };
}

export function isGeometryProblem(value: Geometry | GeometryProblem): value is GeometryProblem {
  return 'problem' in value;
}
