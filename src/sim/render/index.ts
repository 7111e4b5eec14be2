import type { RenderLayer, RgbaImage, Rgb, View } from './types.js';

export type { RenderLayer, RgbaImage, Rgb, View } from './types.js';

const pending = (): never => {
  throw new Error('the renderer is being implemented');
};

/** Draws one render window. Pure: the same inputs give the same pixels. */
export function renderView(_view: View, _layers: readonly RenderLayer[]): RgbaImage {
  return pending();
}

/** Places window images on a canvas of the given size (editor canvas). */
export function tileCanvas(_width: number, _height: number, _tiles: ReadonlyArray<{ x: number; y: number; image: RgbaImage }>, _background: Rgb): RgbaImage {
  return pending();
}

/** The application window: the active editor's canvas inside a simple window frame. */
export function frameApplication(_canvas: RgbaImage, _title: string): RgbaImage {
  return pending();
}

/** Smooth scaling to exactly width x height, ignoring aspect ratio (as the real workbench does). */
export function resizeImage(_image: RgbaImage, _width: number, _height: number): RgbaImage {
  return pending();
}

/** PNG (RGB for window grabs, RGBA for canvases, as the real workbench) or JPEG bytes. */
export function encodeImage(_image: RgbaImage, _format: 'png' | 'jpeg', _options: { alpha?: boolean } = {}): Buffer {
  return pending();
}
