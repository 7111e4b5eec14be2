import type { Annotation, Corner } from '../../figure/annotation-kinds.js';
import type { FigureFormat } from '../../figure/compose.js';
import type { LegendEntry } from '../../figure/compose.js';
import type { Rgb } from '../../image/rgba.js';

/** What the figure's provenance calls the stage: how a report's figure is known as one of it. */
export const COHORT_FIGURE_STEP = 'cohort figure';

/* The compiled `cohort_figure`: plain data, so `wbplay plan` shows it and a later command redraws it. */

/** Which cases are the figure's rows. */
export type CaseChoice =
  { by: 'representative' } | { by: 'name' } | { by: 'where'; where: Record<string, Array<string | number | boolean>> };

export interface CohortRow {
  /** The case's id and name, as reports and reviews know it. */
  case: string;
  name: string;
  /** The text left of the row. */
  label: string;
  /** One capture per column (absolute). */
  tiles: string[];
  /** Per column: this case's annotations, its points in the patient. */
  annotations: Annotation[][];
}

export interface CohortColumn {
  heading?: string;
  scaleBar?: { mm: number; color: Rgb; corner?: Corner };
}

export interface CohortFigurePlan {
  choice: CaseChoice;
  /** The candidate rows in figure order: the chosen cases, or every case when the review chooses. */
  rows: CohortRow[];
  columns: CohortColumn[];
  /** The PNG (absolute); the other formats go beside it. */
  save: string;
  files: Partial<Record<FigureFormat, string>>;
  dpi: number;
  /** Lengths in pixels at `dpi`. */
  width: number;
  height?: number;
  margin: number;
  gap: number;
  fontPx: number;
  letters: 'upper' | 'lower' | 'none';
  background: Rgb;
  textColor: Rgb;
  letterColor: Rgb;
  legend: LegendEntry[];
}
