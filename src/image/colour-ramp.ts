/**
 * Colour tables built the way VTK's `vtkLookupTable::ForceBuild` builds them from ranges of
 * hue, saturation, value and alpha: the workbench's lookup tables that are not lists of
 * colours (MITK's grey, inverse grey, binary and rainbow tables) are such ramps. The client
 * sends them and the reference workbench draws them, so both build them here, byte for byte.
 */
export interface ColourRamp {
  numberOfColors: number;
  hueRange: readonly [number, number];
  saturationRange: readonly [number, number];
  valueRange: readonly [number, number];
  alphaRange: readonly [number, number];
  /** VTK's ramp: 0 S-curve (its default), 1 linear, 2 square root. */
  ramp: number;
}

/** A new `vtkLookupTable`: 256 colours from red to blue on an S-curve. */
export const VTK_DEFAULT_RAMP: ColourRamp = {
  numberOfColors: 256,
  hueRange: [0, 0.66667],
  saturationRange: [1, 1],
  valueRange: [1, 1],
  alphaRange: [1, 1],
  ramp: 0,
};

export const RAMP_SCURVE = 0;
export const RAMP_LINEAR = 1;
export const RAMP_SQRT = 2;

/** RGBA bytes, four per colour, as VTK computes them (same operations, same rounding). */
export function buildRamp(r: ColourRamp): Uint8Array {
  const n = r.numberOfColors;
  const max = n - 1;
  const step = (range: readonly [number, number]): number => (max > 0 ? (range[1] - range[0]) / max : 0);
  const [hinc, sinc, vinc, ainc] = [r.hueRange, r.saturationRange, r.valueRange, r.alphaRange].map(step) as [
    number,
    number,
    number,
    number,
  ];
  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    const [red, green, blue] = hsvToRgb(
      r.hueRange[0] + i * hinc,
      r.saturationRange[0] + i * sinc,
      r.valueRange[0] + i * vinc,
    );
    const alpha = r.alphaRange[0] + i * ainc;
    const o = i * 4;
    if (r.ramp === RAMP_SCURVE) {
      // VTK truncates here, where the other ramps round.
      const curve = (c: number): number => Math.trunc(127.5 * (1.0 + Math.cos((1.0 - c) * Math.PI)));
      out[o] = curve(red);
      out[o + 1] = curve(green);
      out[o + 2] = curve(blue);
      out[o + 3] = Math.trunc(alpha * 255.0);
    } else {
      const shape = r.ramp === RAMP_SQRT ? Math.sqrt : (c: number): number => c;
      out[o] = Math.trunc(shape(red) * 255.0 + 0.5);
      out[o + 1] = Math.trunc(shape(green) * 255.0 + 0.5);
      out[o + 2] = Math.trunc(shape(blue) * 255.0 + 0.5);
      out[o + 3] = Math.trunc(shape(alpha) * 255.0 + 0.5);
    }
  }
  return out;
}

/** `vtkMath::HSVToRGB`: hue in sixths of the circle, then saturation, then value. */
export function hsvToRgb(h: number, s: number, v: number): [number, number, number] {
  const third = 1.0 / 3.0;
  const sixth = 1.0 / 6.0;
  const twoThirds = 2.0 / 3.0;
  const fiveSixths = 5.0 / 6.0;
  let r: number;
  let g: number;
  let b: number;
  if (h > sixth && h <= third) [r, g, b] = [(third - h) / sixth, 1.0, 0.0];
  else if (h > third && h <= 0.5) [r, g, b] = [0.0, 1.0, (h - third) / sixth];
  else if (h > 0.5 && h <= twoThirds) [r, g, b] = [0.0, (twoThirds - h) / sixth, 1.0];
  else if (h > twoThirds && h <= fiveSixths) [r, g, b] = [(h - twoThirds) / sixth, 0.0, 1.0];
  else if (h > fiveSixths && h <= 1.0) [r, g, b] = [1.0, 0.0, (1.0 - h) / sixth];
  else [r, g, b] = [1.0, h / sixth, 0.0];
  return [(s * r + (1.0 - s)) * v, (s * g + (1.0 - s)) * v, (s * b + (1.0 - s)) * v];
}

/** One of MITK's lookup-table types as its ramp, its value range and the entries it sets by hand. */
export interface RampTableType {
  ramp: ColourRamp;
  tableRange: readonly [number, number];
  /** Entries MITK overwrites after building the ramp: index and RGBA bytes. */
  overrides: ReadonlyArray<readonly [number, readonly [number, number, number, number]]>;
}

const grey = { ...VTK_DEFAULT_RAMP, hueRange: [0, 0], saturationRange: [0, 0] } as const;

/**
 * MITK's lookup-table types that are ramps (`mitkLookupTable.cpp`, its `Build…LookupTable`
 * functions), under the names MITK gives them. Its other types copy colour lists kept in
 * MITK's own source; they are not here.
 */
export const MITK_RAMP_TABLES = {
  Grayscale: { ramp: { ...grey, valueRange: [0, 1], ramp: RAMP_LINEAR }, tableRange: [0, 1], overrides: [] },
  // No linear ramp here: MITK leaves VTK's S-curve, and fades the alpha with the grey.
  'Inverse Grayscale': {
    ramp: { ...grey, valueRange: [1, 0], alphaRange: [1, 0] },
    tableRange: [0, 1],
    overrides: [],
  },
  'Legacy Binary': {
    ramp: { ...grey, valueRange: [0, 1], ramp: RAMP_LINEAR },
    tableRange: [0, 1],
    overrides: [[0, [0, 0, 0, 0]]],
  },
  'Legacy Rainbow Color': {
    ramp: { ...VTK_DEFAULT_RAMP, hueRange: [0.6667, 0], ramp: RAMP_LINEAR },
    tableRange: [0, 20],
    overrides: [],
  },
  'PET Black/White': {
    ramp: { ...grey, valueRange: [1, 0], ramp: RAMP_LINEAR },
    tableRange: [0, 1],
    overrides: [[0, [255, 255, 255, 255]]],
  },
} as const satisfies Record<string, RampTableType>;

export type RampTableName = keyof typeof MITK_RAMP_TABLES;

/** The RGBA bytes of one of MITK's ramp tables. */
export function rampTable(name: RampTableName): Uint8Array {
  const type: RampTableType = MITK_RAMP_TABLES[name];
  const bytes = buildRamp(type.ramp);
  for (const [i, rgba] of type.overrides) bytes.set(rgba, i * 4);
  return bytes;
}
