import { fillRect } from './pixels.js';
import type { Rgb, RgbaImage } from './rgba.js';

/**
 * A tiny built-in 5x7 bitmap font for the title bar of the reference workbench's application
 * window. Every other text wbplay draws (figures, contact-sheet captions) is set in DejaVu Sans
 * by resvg (src/figure/); the reference workbench stays below figure/ in the folder graph and
 * its renderer draws pixels without a font engine, so its title keeps this font: no system
 * fonts, no anti-aliasing, no hinting, the same bytes on every machine.
 */
export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 7;
/** One blank column between characters, one blank row between lines. */
export const ADVANCE = GLYPH_WIDTH + 1;
export const LINE_HEIGHT = GLYPH_HEIGHT + 1;

const FIRST = 32;
const LAST = 126;

/**
 * ASCII 32..126 in order. Each glyph is seven rows, top first; each row is one base-32 digit
 * whose five bits are the columns, the leftmost column the highest bit.
 */
const GLYPHS = [
  '0000000',
  '4444404',
  'aaa0000',
  'aavavaa',
  '4fke5u4',
  'op248j3',
  'cik8lid',
  '4480000',
  '2488842',
  '8422248',
  '04lel40',
  '044v440',
  '0000c48',
  '000v000',
  '00000cc',
  '01248g0',
  'ehjlphe',
  '4c4444e',
  'eh1248v',
  'v2421he',
  '26aiv22',
  'vgu11he',
  '68guhhe',
  'v124888',
  'ehhehhe',
  'ehhf12c',
  '0cc0cc0',
  '0cc0c48',
  '248g842',
  '00v0v00',
  '8421248',
  'eh12404',
  'eh1dlle',
  'ehhvhhh',
  'uhhuhhu',
  'ehggghe',
  'sihhhis',
  'vgguggv',
  'vgguggg',
  'ehgnhhf',
  'hhhvhhh',
  'e44444e',
  '72222ic',
  'hikokih',
  'ggggggv',
  'hrllhhh',
  'hhpljhh',
  'ehhhhhe',
  'uhhuggg',
  'ehhhlid',
  'uhhukih',
  'fgge11u',
  'v444444',
  'hhhhhhe',
  'hhhhha4',
  'hhhllla',
  'hha4ahh',
  'hha4444',
  'v1248gv',
  'e88888e',
  '0g84210',
  'e22222e',
  '4ah0000',
  '000000v',
  '8420000',
  '00e1fhf',
  'ggmphhu',
  '00egghe',
  '11djhhf',
  '00ehvge',
  '698s888',
  '0fhhf1e',
  'ggmphhh',
  '40c444e',
  '20622ic',
  'ggikoki',
  'c44444e',
  '00qllhh',
  '00mphhh',
  '00ehhhe',
  '00uhugg',
  '00djf11',
  '00mpggg',
  '00ege1u',
  '88s8896',
  '00hhhjd',
  '00hhha4',
  '00hhlla',
  '00ha4ah',
  '00hhf1e',
  '00v248v',
  '2448442',
  '4444444',
  '8442448',
  '008l200',
];

/** Glyph rows as bit masks, decoded once. */
const ROWS: Uint8Array = (() => {
  const rows = new Uint8Array(GLYPHS.length * GLYPH_HEIGHT);
  GLYPHS.forEach((glyph, g) => {
    for (let r = 0; r < GLYPH_HEIGHT; r++) rows[g * GLYPH_HEIGHT + r] = parseInt(glyph[r] ?? '0', 32);
  });
  return rows;
})();

/** Rows of a character's glyph; characters outside printable ASCII are drawn as '?'. */
function glyphIndex(code: number): number {
  return code >= FIRST && code <= LAST ? code - FIRST : '?'.charCodeAt(0) - FIRST;
}

/** Size in pixels of `text` drawn at `scale` (lines split at '\n'). */
export function measureText(text: string, scale = 1): { width: number; height: number } {
  const lines = text.split('\n');
  const longest = Math.max(...lines.map((line) => line.length));
  const s = validScale(scale);
  return { width: longest === 0 ? 0 : (longest * ADVANCE - 1) * s, height: (lines.length * LINE_HEIGHT - 1) * s };
}

/**
 * Draws `text` with its top-left corner at (x, y), each font pixel a `scale`×`scale` square of
 * opaque `color` (0..1 per channel). Only the glyphs' set pixels are painted, so the text sits
 * on whatever is below; anything outside the image is clipped. '\n' starts a new line.
 */
export function drawText(image: RgbaImage, x: number, y: number, text: string, color: Rgb, scale = 1): void {
  const s = validScale(scale);
  let cx = Math.round(x);
  let cy = Math.round(y);
  for (const ch of text) {
    if (ch === '\n') {
      cx = Math.round(x);
      cy += LINE_HEIGHT * s;
      continue;
    }
    const g = glyphIndex(ch.length === 1 ? ch.charCodeAt(0) : -1);
    for (let r = 0; r < GLYPH_HEIGHT; r++) {
      const bits = ROWS[g * GLYPH_HEIGHT + r]!;
      if (bits === 0) continue;
      for (let c = 0; c < GLYPH_WIDTH; c++) {
        if (bits & (1 << (GLYPH_WIDTH - 1 - c))) fillRect(image, cx + c * s, cy + r * s, s, s, color);
      }
    }
    cx += ADVANCE * s;
  }
}

/** Scales are whole pixels; anything else (0, negative, NaN) draws at 1. */
function validScale(scale: number): number {
  return Number.isFinite(scale) && scale >= 1 ? Math.floor(scale) : 1;
}
