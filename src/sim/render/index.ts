import { checkDimension } from '../../image/render-error.js';
import type { RenderLayer, RgbaImage, View } from './types.js';
import { renderView2D } from './view-2d.js';
import { renderView3D } from './view-3d.js';

export type { RenderLayer, RgbaImage, Rgb, View } from './types.js';
export { tileCanvas, frameApplication } from './canvas.js';
export { resizeImage } from '../../image/resize.js';
export { encodeImage } from './encode.js';
export { drawText, measureText } from '../../image/bitmap-font.js';
export { RenderInputError } from '../../image/render-error.js';

/**
 * Draws one render window. Pure: the same inputs give the same pixels. The picture is drawn
 * into `into` when that has exactly its size (every byte is written), else into a new buffer.
 */
export function renderView(view: View, layers: readonly RenderLayer[], into?: Uint8Array): RgbaImage {
  checkDimension(`${view.kind} view width`, view.width);
  checkDimension(`${view.kind} view height`, view.height);
  const size = view.width * view.height * 4;
  const data = into?.length === size ? into : new Uint8Array(size);
  return view.kind === '2d' ? renderView2D(view, layers, data) : renderView3D(view, layers, data);
}
