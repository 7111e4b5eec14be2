import { to8 } from '../image/pixels.js';
import type { Rgb, RgbaImage } from '../image/rgba.js';
import { esc } from '../markup/escape.js';
import { FONT_FAMILY } from './font.js';
import { measureTexts, rasterise } from './raster.js';

/*
 * Lines of text drawn by the figures' own engine (resvg, DejaVu Sans), for pictures that are not
 * figures but carry words, such as the contact sheet's captions: one typeface and one renderer
 * for every text wbplay draws. Many lines go into one SVG, so the font is loaded once for them
 * all, and the background is drawn with them, so the pixels can be copied without blending.
 */

/** DejaVu Sans's ascent and descent, in em (hhea: 1901 and -483 of 2048 units). */
const ASCENT = 1901 / 2048;
const DESCENT = 483 / 2048;
/** No glyph of DejaVu Sans a caption uses is wider than this, in em: a text shorter than this bound needs no measuring. */
const WIDEST = 1.05;
const ELLIPSIS = '\u2026';

/** The height of one line of text at a size, ascent and descent, in pixels. */
export function lineHeight(fontPx: number): number {
  return Math.ceil((ASCENT + DESCENT) * fontPx);
}

/** One line of text centred in a span `width` wide whose top-left is (x, y) in the strip. */
export interface CentredText {
  text: string;
  x: number;
  y: number;
  width: number;
}

export interface StripStyle {
  fontPx: number;
  color: Rgb;
  background: Rgb;
}

const hex = (c: Rgb): string => `#${c.map((v) => to8(v).toString(16).padStart(2, '0')).join('')}`;

/** An opaque strip `width` x `height` in the background colour with each text centred in its span. */
export function drawTextStrip(
  width: number,
  height: number,
  texts: readonly CentredText[],
  style: StripStyle,
): RgbaImage {
  const baseline = Math.round(ASCENT * style.fontPx);
  const spans = texts
    .filter((t) => t.text.trim() !== '')
    .map(
      (t) =>
        `<text x="${t.x + t.width / 2}" y="${t.y + baseline}" text-anchor="middle" xml:space="preserve">${esc(t.text)}</text>`,
    );
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="${width}" height="${height}" fill="${hex(style.background)}"/>` +
    `<g font-family="${FONT_FAMILY}" font-size="${style.fontPx}" fill="${hex(style.color)}">${spans.join('')}</g></svg>`;
  const image = rasterise(svg);
  return { width: image.width, height: image.height, data: image.data };
}

/**
 * `text` as it fits in `width` pixels at `fontPx`: whole, or cut and ended with an ellipsis.
 * Only a text that might not fit is measured (by resvg, as it will be drawn).
 */
export function fitText(text: string, width: number, fontPx: number): string {
  const chars = [...text.replace(/\s+/g, ' ')];
  if (chars.length * WIDEST * fontPx <= width) return chars.join('');
  const fits = (n: number): boolean =>
    (measureTexts([n === chars.length ? chars.join('') : `${chars.slice(0, n).join('')}${ELLIPSIS}`], fontPx)[0] ??
      0) <= width;
  if (fits(chars.length)) return chars.join('');
  // The longest cut that fits, found in as few measurements as the length allows.
  let lo = 0;
  let hi = chars.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? (fits(0) ? ELLIPSIS : '') : `${chars.slice(0, lo).join('')}${ELLIPSIS}`;
}
