/** A length as a playbook writes it: `89mm`, `3.5in`, `1.2cm`, `2000px`. */
export const LENGTH_PATTERN = '^[0-9]+(\\.[0-9]+)?(mm|cm|in|px)$';

const LENGTH = new RegExp(LENGTH_PATTERN);
const MM_PER_INCH = 25.4;
const POINTS_PER_INCH = 72;

/** Pixels of a length at a resolution; `undefined` when the text is not a length. Not rounded. */
export function lengthInPixels(text: string, dpi: number): number | undefined {
  if (!LENGTH.test(text)) return undefined;
  const unit = text.slice(-2);
  const value = Number(text.slice(0, -2));
  switch (unit) {
    case 'px':
      return value;
    case 'in':
      return value * dpi;
    case 'cm':
      return ((value * 10) / MM_PER_INCH) * dpi;
    default:
      return (value / MM_PER_INCH) * dpi;
  }
}

/** Type sizes are given in points, as journals state them. */
export function pointsInPixels(points: number, dpi: number): number {
  return (points / POINTS_PER_INCH) * dpi;
}

/** Millimetres shown for a pixel length at a resolution, for messages. */
export function pixelsInMm(pixels: number, dpi: number): number {
  return (pixels / dpi) * MM_PER_INCH;
}
