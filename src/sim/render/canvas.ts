import { drawText, GLYPH_HEIGHT } from '../../image/bitmap-font.js';
import { blit, filled, fillRect } from '../../image/pixels.js';
import { checkDimension, checkImage } from '../../image/render-error.js';
import type { Rgb, RgbaImage } from './types.js';

/** Height of the application window's title bar band, border included. */
export const TITLE_BAR = 28;
/** Width of the application window's border on the left, right and bottom. */
export const BORDER = 4;
const FRAME: Rgb = [0.2, 0.21, 0.24];
const TITLE: Rgb = [0.28, 0.3, 0.36];
const TITLE_TEXT: Rgb = [0.9, 0.91, 0.93];
const TITLE_SCALE = 2;
/** Room kept free at the title's left. */
const TITLE_INDENT = 10;

/**
 * An editor canvas: `background` (the splitter colour) with each window image placed at its
 * top-left corner; tiles reaching past the canvas are clipped, later tiles cover earlier ones.
 */
export function tileCanvas(
  width: number,
  height: number,
  tiles: ReadonlyArray<{ x: number; y: number; image: RgbaImage }>,
  background: Rgb,
): RgbaImage {
  checkDimension('canvas width', width);
  checkDimension('canvas height', height);
  const canvas = filled(width, height, background);
  tiles.forEach((tile, i) => {
    checkImage(`tile ${i}`, tile.image);
    blit(canvas, tile.image, Math.round(tile.x), Math.round(tile.y));
  });
  return canvas;
}

/**
 * The application window: the canvas inside a frame with a title bar band at the top (the title
 * in the built-in bitmap font, clipped at the right border) and a border on the other sides.
 */
export function frameApplication(canvas: RgbaImage, title: string): RgbaImage {
  checkImage('application canvas', canvas);
  const out = filled(canvas.width + 2 * BORDER, canvas.height + TITLE_BAR + BORDER, FRAME);
  const band = TITLE_BAR - BORDER;
  fillRect(out, 0, 0, out.width, band, TITLE);
  // The title is drawn into a band-sized image first so that a long title stops at the border.
  const label = filled(Math.max(1, out.width - BORDER - TITLE_INDENT), band, TITLE);
  drawText(label, 0, Math.floor((band - GLYPH_HEIGHT * TITLE_SCALE) / 2), title, TITLE_TEXT, TITLE_SCALE);
  blit(out, label, TITLE_INDENT, 0);
  blit(out, canvas, BORDER, TITLE_BAR);
  return out;
}
