import { blit, filled } from './pixels.js';
import type { RenderLayer, RgbaImage, Rgb, View } from './types.js';
import { renderView2D } from './view-2d.js';
import { renderView3D } from './view-3d.js';

export type { RenderLayer, RgbaImage, Rgb, View } from './types.js';
export { resizeImage } from './resize.js';
export { encodeImage } from './encode.js';

/** Draws one render window. Pure: the same inputs give the same pixels. */
export function renderView(view: View, layers: readonly RenderLayer[]): RgbaImage {
  return view.kind === '2d' ? renderView2D(view, layers) : renderView3D(view, layers);
}

/** Places window images on a canvas of the given size (editor canvas). */
export function tileCanvas(width: number, height: number, tiles: ReadonlyArray<{ x: number; y: number; image: RgbaImage }>, background: Rgb): RgbaImage {
  const canvas = filled(width, height, background);
  for (const tile of tiles) blit(canvas, tile.image, tile.x, tile.y);
  return canvas;
}

const TITLE_BAR = 28;
const BORDER = 4;
const FRAME: Rgb = [0.2, 0.21, 0.24];
const TITLE: Rgb = [0.28, 0.3, 0.36];

/** The application window: the active editor's canvas inside a simple window frame. */
export function frameApplication(canvas: RgbaImage, _title: string): RgbaImage {
  const out = filled(canvas.width + 2 * BORDER, canvas.height + TITLE_BAR + BORDER, FRAME);
  blit(out, filled(out.width, TITLE_BAR - BORDER, TITLE), 0, 0);
  blit(out, canvas, BORDER, TITLE_BAR);
  return out;
}
