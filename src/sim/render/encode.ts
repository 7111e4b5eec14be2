import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { checkImage } from './render-error.js';
import type { RgbaImage } from './types.js';

/** Qt's default JPEG quality, which the workbench uses for its grabs. */
const JPEG_QUALITY = 75;

/**
 * PNG row filter: Paeth for every row. pngjs by default tries all five filters on every row
 * and keeps the smallest, which made encoding most of a screenshot's cost; on the rendering
 * goldens Paeth alone gives files within 2% of that size in 37% of the time (Sub or Up alone
 * are faster still, but give files 2-4 times larger).
 */
const PNG_FILTER = 4;

/**
 * PNG or JPEG bytes. Window grabs of the real workbench are RGB PNGs (colour type 2), canvas
 * grabs RGBA (colour type 6); `alpha` picks which. Without alpha the alpha channel is dropped,
 * as a framebuffer grab ignores it (pngjs would compose it over white). JPEG has no alpha either.
 * Both encoders are deterministic.
 */
export function encodeImage(image: RgbaImage, format: 'png' | 'jpeg', options: { alpha?: boolean } = {}): Buffer {
  checkImage('image to encode', image);
  const rgba = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  if (format === 'jpeg') return jpeg.encode({ width: image.width, height: image.height, data: rgba }, JPEG_QUALITY).data;
  const png = new PNG({ width: image.width, height: image.height });
  if (options.alpha) {
    png.data = rgba;
    return PNG.sync.write(png, { colorType: 6, inputColorType: 6, inputHasAlpha: true, filterType: PNG_FILTER });
  }
  png.data = dropAlpha(rgba);
  return PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false, filterType: PNG_FILTER });
}

function dropAlpha(rgba: Buffer): Buffer {
  const rgb = Buffer.allocUnsafe((rgba.length / 4) * 3);
  for (let i = 0, o = 0; i < rgba.length; i += 4, o += 3) {
    rgb[o] = rgba[i]!;
    rgb[o + 1] = rgba[i + 1]!;
    rgb[o + 2] = rgba[i + 2]!;
  }
  return rgb;
}
