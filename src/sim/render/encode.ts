import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { checkImage } from './render-error.js';
import type { RgbaImage } from './types.js';

/** Qt's default JPEG quality, which the workbench uses for its grabs. */
const JPEG_QUALITY = 75;

/**
 * PNG or JPEG bytes. Window grabs of the real workbench are RGB PNGs (colour type 2), canvas
 * grabs RGBA (colour type 6); `alpha` picks which. Both encoders are deterministic.
 */
export function encodeImage(image: RgbaImage, format: 'png' | 'jpeg', options: { alpha?: boolean } = {}): Buffer {
  checkImage('image to encode', image);
  if (format === 'jpeg') {
    return jpeg.encode({ width: image.width, height: image.height, data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength) }, JPEG_QUALITY).data;
  }
  const png = new PNG({ width: image.width, height: image.height, colorType: options.alpha ? 6 : 2, inputColorType: 6, inputHasAlpha: true });
  png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  return PNG.sync.write(png, { colorType: options.alpha ? 6 : 2, inputColorType: 6, inputHasAlpha: true });
}
