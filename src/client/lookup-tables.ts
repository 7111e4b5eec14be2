import { MITK_RAMP_TABLES, rampTable, type RampTableName } from '../image/colour-ramp.js';
import { JsonFloat } from './json-body.js';

/**
 * The colour maps a playbook can name: MITK's lookup-table types whose tables are built from
 * ramps (mitkLookupTable.cpp), sent as exactly the table MITK builds for the type.
 */
export const COLORMAPS = Object.keys(MITK_RAMP_TABLES) as RampTableName[];

export type Colormap = RampTableName;

export const isColormap = (name: string): name is Colormap => (COLORMAPS as string[]).includes(name);

/**
 * MITK's other lookup-table types and why they are not offered: their colours are lists kept
 * in MITK's own source files, which this project does not copy, so the table sent could not
 * be MITK's to the byte. A table of one's own still goes through `properties: {LookupTable}`.
 */
export const COLORMAPS_LEFT_OUT: Readonly<Record<string, string>> = {
  'Hot Iron': '256 colours listed in MITK’s Colortables/HotIron.h',
  Jet: '256 colours listed in MITK’s Colortables/Jet.h',
  'Jet Transparent': 'the Jet list with its first colour transparent',
  Plasma: '256 colours listed in MITK’s Colortables/Plasma.h',
  Inferno: '256 colours listed in MITK’s Colortables/Inferno.h',
  Viridis: '256 colours listed in MITK’s Colortables/Viridis.h',
  Magma: '256 colours listed in MITK’s Colortables/Magma.h',
  Turbo: '256 colours listed in MITK’s Colortables/Turbo.h',
  'PET Color': '256 colours listed in MITK’s Colortables/PETColor.h',
  'PET 20': '256 colours listed in MITK’s Colortables/PET20.h',
  Multilabel: '65536 entries: the label palette listed in MITK’s Colortables/Multilabel.h, then a repeating pattern',
};

const f = (n: number): JsonFloat => new JsonFloat(n);

/**
 * The `LookupTable` property of a colour map. MITK's `LookupTableProperty::FromJSON` sets
 * the table's scale from "Ramp" (and never sets the ramp), so "Ramp" carries the scale the
 * table must have, 0 (linear): sent with the ramp a table was built with (1 for the linear
 * grey one), the workbench would map values on a log scale. The ramp only matters to VTK when
 * it builds a table from its ranges, which it does not do for a table given entry by entry.
 */
export function colormapProperty(name: Colormap): { type: 'LookupTableProperty'; value: Record<string, unknown> } {
  const { ramp, tableRange } = MITK_RAMP_TABLES[name];
  const bytes = rampTable(name);
  const table: JsonFloat[][] = [];
  for (let i = 0; i < bytes.length; i += 4) table.push([0, 1, 2, 3].map((c) => f(bytes[i + c]! / 255)));
  const pair = (p: readonly [number, number]): JsonFloat[] => [f(p[0]), f(p[1])];
  return {
    type: 'LookupTableProperty',
    value: {
      NumberOfColors: ramp.numberOfColors,
      Scale: 0,
      Ramp: 0,
      HueRange: pair(ramp.hueRange),
      ValueRange: pair(ramp.valueRange),
      SaturationRange: pair(ramp.saturationRange),
      AlphaRange: pair(ramp.alphaRange),
      TableRange: pair(tableRange),
      Table: table,
    },
  };
}

/** A lookup table as read: its entries (0..1 per channel) and range, or undefined when it is not one. */
export interface LookupTableColours {
  table: Array<[number, number, number, number]>;
  range: [number, number];
  /** VTK's scale as the workbench holds it: 0 linear, 1 log10. */
  scale: number;
}

export function lookupTableOf(property: unknown): LookupTableColours | undefined {
  const value = (property as { value?: unknown } | null)?.value as Record<string, unknown> | undefined;
  const table = value?.Table;
  const range = value?.TableRange;
  const [lo, hi] = Array.isArray(range) ? (range as unknown[]) : [];
  if (!Array.isArray(table) || typeof lo !== 'number' || typeof hi !== 'number') return undefined;
  const entries = table.filter(
    (e): e is [number, number, number, number] =>
      Array.isArray(e) && e.length === 4 && e.every((c) => typeof c === 'number'),
  );
  if (entries.length !== table.length || entries.length === 0) return undefined;
  return { table: entries, range: [lo, hi], scale: typeof value?.Scale === 'number' ? value.Scale : 0 };
}

/** Which of the colour maps a table is, entry for entry (to the byte), or null for another table. */
export function colormapOf(colours: LookupTableColours): Colormap | null {
  const bytes = colours.table.flat().map((c) => Math.round(c * 255));
  for (const name of COLORMAPS) {
    const own = rampTable(name);
    if (own.length === bytes.length && own.every((b, i) => b === bytes[i])) return name;
  }
  return null;
}
