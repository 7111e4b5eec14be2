import type * as JpegJs from 'jpeg-js';
import { loadOnFirstUse } from '../../image/codec-loader.js';
import { encodeRenderPng } from '../../image/png-encode.js';
import { checkImage } from '../../image/render-error.js';
import type { RgbaImage } from './types.js';

/** jpeg-js, for JPEG grabs only. */
const loadJpeg = loadOnFirstUse<typeof JpegJs>('jpeg-js');

/** Qt's default JPEG quality, which the workbench uses for its grabs. */
const JPEG_QUALITY = 75;

/**
 * PNG or JPEG bytes. Window grabs of the real workbench are RGB PNGs (colour type 2), canvas
 * grabs RGBA (colour type 6); `alpha` picks which. JPEG has no alpha. Both are deterministic.
 */
export function encodeImage(image: RgbaImage, format: 'png' | 'jpeg', options: { alpha?: boolean } = {}): Buffer {
  checkImage('image to encode', image);
  if (format === 'jpeg') {
    const rgba = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
    return loadJpeg().encode({ width: image.width, height: image.height, data: rgba }, JPEG_QUALITY).data;
  }
  const png = encodeRenderPng(image, options.alpha === true);
  return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
}
